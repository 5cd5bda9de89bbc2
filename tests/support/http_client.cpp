#include "support/http_client.hpp"

#include "support/exchange_recorder.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace storeapi::testing {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool has_header(const Headers& headers, std::string_view name) {
  for (const auto& [n, v] : headers)
    if (iequals(n, name)) return true;
  return false;
}

// Milliseconds left until `deadline`, for poll(2); never negative.
int millis_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Parses "HTTP/1.x SSS reason" and the header lines of `head` (without the blank line).
HttpResponse parse_head(std::string_view head) {
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  HttpResponse res;
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ' ||
      std::from_chars(status_line.data() + 9, status_line.data() + 12, res.status).ptr != status_line.data() + 12)
    throw std::runtime_error("not an HTTP/1.x status line: " + std::string(status_line));
  res.http_minor = status_line[7] - '0';
  res.reason = std::string(trim(status_line.substr(12)));
  while (eol != std::string_view::npos) {
    std::size_t start = eol + 2;
    eol = head.find("\r\n", start);
    std::string_view line = head.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) throw std::runtime_error("bad header line: " + std::string(line));
    res.headers.emplace_back(std::string(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
  }
  return res;
}

// The method and target of a request line at the start of `bytes` ("GET /x HTTP/1.1").
std::optional<std::pair<std::string, std::string>> request_line_at(std::string_view bytes) {
  const std::size_t method_end = bytes.find(' ');
  if (method_end == 0 || method_end == std::string_view::npos) return std::nullopt;
  for (char c : bytes.substr(0, method_end))
    if (c < 'A' || c > 'Z') return std::nullopt;
  const std::size_t target_end = bytes.find(' ', method_end + 1);
  if (target_end == std::string_view::npos || bytes.substr(target_end + 1, 5) != "HTTP/") return std::nullopt;
  const std::string_view target = bytes.substr(method_end + 1, target_end - method_end - 1);
  if (target.empty() || target.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  return std::pair{std::string(bytes.substr(0, method_end)), std::string(target)};
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (iequals(n, name)) return v;
  return std::nullopt;
}

std::size_t HttpResponse::header_count(std::string_view name) const {
  std::size_t count = 0;
  for (const auto& [n, v] : headers) count += iequals(n, name);
  return count;
}

bool HttpResponse::connection_close() const {
  auto connection = header("Connection");
  return connection && iequals(*connection, "close");
}

std::string format_request(std::string_view method, std::string_view target, const Headers& headers,
                           std::string_view body) {
  std::string out;
  out.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  if (!has_header(headers, "Host")) out.append("Host: 127.0.0.1\r\n");
  for (const auto& [name, value] : headers) out.append(name).append(": ").append(value).append("\r\n");
  if (!body.empty() && !has_header(headers, "Content-Length") && !has_header(headers, "Transfer-Encoding"))
    out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  out.append("\r\n").append(body);
  return out;
}

Headers bearer(std::string_view key) { return {{"Authorization", "Bearer " + std::string(key)}}; }

HttpClient::HttpClient(std::uint16_t port, std::chrono::milliseconds timeout) : timeout_(timeout) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw_errno("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    int e = errno;
    ::close(fd_);
    errno = e;
    throw_errno("connect to 127.0.0.1:" + std::to_string(port));
  }
  // Small test writes go out at once instead of waiting for Nagle.
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

HttpClient::~HttpClient() {
  if (fd_ >= 0) ::close(fd_);
}

HttpClient::HttpClient(HttpClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      timeout_(other.timeout_),
      buf_(std::move(other.buf_)),
      eof_(other.eof_),
      recorded_(other.recorded_),
      unanswered_(std::move(other.unanswered_)) {}

HttpClient& HttpClient::operator=(HttpClient&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    timeout_ = other.timeout_;
    buf_ = std::move(other.buf_);
    eof_ = other.eof_;
    recorded_ = other.recorded_;
    unanswered_ = std::move(other.unanswered_);
  }
  return *this;
}

void HttpClient::note_requests(std::string_view bytes) {
  // Request after request, each head followed by its Content-Length of body; a chunked
  // body or anything unrecognised ends the reading (what follows is matched to nothing).
  for (std::size_t at = 0; at < bytes.size();) {
    auto line = request_line_at(bytes.substr(at));
    if (!line) return;
    unanswered_.push_back(std::move(*line));
    const std::size_t head_end = bytes.find("\r\n\r\n", at);
    if (head_end == std::string_view::npos) return;
    std::string head(bytes.substr(at, head_end - at));
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head.find("\r\ntransfer-encoding:") != std::string::npos) return;
    std::size_t length = 0;
    if (const std::size_t field = head.find("\r\ncontent-length:"); field != std::string::npos) {
      std::string_view value = trim(std::string_view(head).substr(field + 17));
      if (std::from_chars(value.data(), value.data() + value.size(), length).ec != std::errc{}) return;
    }
    at = head_end + 4 + length;
  }
}

bool HttpClient::send_raw(std::string_view bytes) {
  note_requests(bytes);
  auto deadline = Clock::now() + timeout_;
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EPIPE || errno == ECONNRESET) return false;
    if (errno != EAGAIN && errno != EINTR) throw_errno("send");
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, millis_until(deadline)) == 0) throw std::runtime_error("send: the server stopped reading");
  }
  return true;
}

bool HttpClient::send(std::string_view method, std::string_view target, const Headers& headers,
                      std::string_view body) {
  return send_raw(format_request(method, target, headers, body));
}

HttpClient::Fill HttpClient::fill(Clock::time_point deadline) {
  if (eof_) return Fill::closed;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, millis_until(deadline));
    if (ready == 0) return Fill::timeout;
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    char chunk[64 * 1024];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      buf_.append(chunk, static_cast<std::size_t>(n));
      return Fill::data;
    }
    if (n == 0 || errno == ECONNRESET) {
      eof_ = true;
      return Fill::closed;
    }
    if (errno != EAGAIN && errno != EINTR) throw_errno("recv");
  }
}

std::optional<HttpResponse> HttpClient::read_one(ReadOptions options, Clock::time_point deadline) {
  std::size_t head_end;
  while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos) {
    Fill f = fill(deadline);
    if (f == Fill::closed) return std::nullopt;
    if (f == Fill::timeout) throw std::runtime_error("timed out waiting for response headers");
  }
  HttpResponse res = parse_head(std::string_view(buf_).substr(0, head_end));
  std::size_t body_start = head_end + 4;
  bool bodiless = options.head || res.status < 200 || res.status == 204 || res.status == 304;
  std::optional<std::string> length = res.header("Content-Length");
  std::size_t body_len = 0;
  if (!bodiless && length) {
    if (std::from_chars(length->data(), length->data() + length->size(), body_len).ptr != length->data() + length->size())
      throw std::runtime_error("bad Content-Length: " + *length);
    while (buf_.size() < body_start + body_len) {
      Fill f = fill(deadline);
      if (f == Fill::closed) return std::nullopt;
      if (f == Fill::timeout) throw std::runtime_error("timed out waiting for the response body");
    }
  } else if (!bodiless) {
    // No length: the body runs to the end of the connection.
    for (Fill f; (f = fill(deadline)) != Fill::closed;)
      if (f == Fill::timeout) throw std::runtime_error("timed out waiting for the end of a body without length");
    body_len = buf_.size() - body_start;
  }
  res.body = buf_.substr(body_start, body_len);
  buf_.erase(0, body_start + body_len);
  return res;
}

std::optional<HttpResponse> HttpClient::read_response(ReadOptions options) {
  auto deadline = Clock::now() + timeout_;
  std::vector<int> interim;
  for (;;) {
    std::optional<HttpResponse> res = read_one(options, deadline);
    if (!res) return std::nullopt;
    if (res->status >= 200 && recorded_) {
      std::pair<std::string, std::string> request{"(unparsed)", "(unparsed)"};
      if (!unanswered_.empty()) {
        request = std::move(unanswered_.front());
        unanswered_.pop_front();
      }
      record_exchange(request.first, request.second, *res);
    }
    if (res->status >= 200 || options.return_interim) {
      res->interim = std::move(interim);
      return res;
    }
    interim.push_back(res->status);
  }
}

HttpResponse HttpClient::request(std::string_view method, std::string_view target, const Headers& headers,
                                 std::string_view body) {
  send(method, target, headers, body);
  std::optional<HttpResponse> res = read_response({.head = method == "HEAD"});
  if (!res) throw std::runtime_error("connection closed before a response to " + std::string(method) + " " +
                                     std::string(target));
  return *res;
}

HttpResponse HttpClient::request_json(std::string_view method, std::string_view target, Headers headers,
                                      std::string_view body) {
  if (!body.empty() && !has_header(headers, "Content-Type")) headers.emplace_back("Content-Type", "application/json");
  return request(method, target, headers, body);
}

bool HttpClient::wait_closed(std::chrono::milliseconds timeout) {
  if (!buf_.empty()) return false;
  return fill(Clock::now() + timeout) == Fill::closed;
}

bool HttpClient::readable(std::chrono::milliseconds wait) {
  if (!buf_.empty() || eof_) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
}

void HttpClient::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

void HttpClient::reset() {
  linger hard{1, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace storeapi::testing
