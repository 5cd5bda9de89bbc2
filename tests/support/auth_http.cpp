#include "support/auth_http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace storeapi::testing {
namespace {

// A loaded test machine can be slow, but a reply that takes this long is a hang.
constexpr int kIoTimeoutSeconds = 30;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> HttpReply::header(std::string_view name) const {
  std::string wanted = lower(name);
  for (const auto& [n, v] : headers)
    if (n == wanted) return v;
  return std::nullopt;
}

HttpHeaders bearer(std::string_view key) { return {{"Authorization", "Bearer " + std::string(key)}}; }

RawHttpConnection::RawHttpConnection(std::uint16_t port) : port_(port) { open(); }

RawHttpConnection::~RawHttpConnection() {
  if (fd_ >= 0) ::close(fd_);
}

RawHttpConnection::RawHttpConnection(RawHttpConnection&& other) noexcept
    : port_(other.port_), fd_(std::exchange(other.fd_, -1)), buffer_(std::move(other.buffer_)) {}

void RawHttpConnection::open() {
  if (fd_ >= 0) ::close(fd_);
  buffer_.clear();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  timeval tv{kIoTimeoutSeconds, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("connect to port " + std::to_string(port_) + ": " + std::strerror(errno));
}

void RawHttpConnection::send_all(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error("send: " + std::string(n == 0 ? "nothing sent" : std::strerror(errno)));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

HttpReply RawHttpConnection::request(std::string_view method, std::string_view target, const HttpHeaders& headers,
                                     std::string_view body) {
  if (fd_ < 0) open();
  std::string out;
  out.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  for (const auto& [name, value] : headers) out.append(name).append(": ").append(value).append("\r\n");
  bool has_body = !body.empty() || method == "POST" || method == "PATCH";
  if (has_body) {
    if (!body.empty()) out.append("Content-Type: application/json\r\n");
    out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  out.append("\r\n").append(body);
  send_all(out);
  HttpReply reply = read_reply(method == "HEAD");
  if (reply.header("connection") == "close") {
    ::close(fd_);
    fd_ = -1;
  }
  return reply;
}

HttpReply RawHttpConnection::read_reply(bool head) {
  char chunk[16384];
  auto fill = [&] {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      throw std::runtime_error("no response within " + std::to_string(kIoTimeoutSeconds) + " s");
    if (n < 0) throw std::runtime_error("recv: " + std::string(std::strerror(errno)));
    if (n == 0) throw std::runtime_error("the server closed the connection before a complete response");
    buffer_.append(chunk, static_cast<std::size_t>(n));
  };
  std::size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) fill();

  HttpReply reply;
  std::string_view head_block(buffer_.data(), end);
  std::size_t line_end = head_block.find("\r\n");
  std::string_view status_line = head_block.substr(0, line_end);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12)
    throw std::runtime_error("bad status line: " + std::string(status_line));
  std::from_chars(status_line.data() + 9, status_line.data() + 12, reply.status);
  std::size_t content_length = 0;
  while (line_end != std::string_view::npos) {
    std::size_t start = line_end + 2;
    line_end = head_block.find("\r\n", start);
    std::string_view line = head_block.substr(start, line_end == std::string_view::npos ? line_end : line_end - start);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) throw std::runtime_error("bad header line: " + std::string(line));
    reply.headers.emplace_back(lower(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
    if (reply.headers.back().first == "content-length") {
      std::string_view v = reply.headers.back().second;
      std::from_chars(v.data(), v.data() + v.size(), content_length);
    }
  }
  buffer_.erase(0, end + 4);
  if (head || reply.status == 204 || reply.status == 304) content_length = 0;
  while (buffer_.size() < content_length) fill();
  reply.body = buffer_.substr(0, content_length);
  buffer_.erase(0, content_length);
  return reply;
}

}  // namespace storeapi::testing
