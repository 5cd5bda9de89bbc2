#include "redis/probe.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "redis/protocol.hpp"

namespace storeapi::redis {
namespace {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool wait_for(int fd, short events, Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  pollfd p{fd, events, 0};
  return left.count() > 0 && ::poll(&p, 1, static_cast<int>(left.count())) == 1;
}

bool send_all(int fd, const std::string& bytes, Clock::time_point deadline) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    if (!wait_for(fd, POLLOUT, deadline)) return false;
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// A TLS handshake on a blocking schedule; false with `error` set.
bool tls_handshake(int fd, TlsSession& tls, Clock::time_point deadline, std::string& error) {
  std::array<char, 4096> buffer;
  for (;;) {
    const TlsSession::Step step = tls.handshake();
    std::string output;
    tls.take_output(output);
    if (!send_all(fd, output, deadline)) {
      error = "TLS: cannot send";
      return false;
    }
    if (step == TlsSession::Step::done) return true;
    if (step == TlsSession::Step::failed) {
      error = "TLS: " + tls.error();
      return false;
    }
    if (!wait_for(fd, POLLIN, deadline)) {
      error = "TLS: no answer in time";
      return false;
    }
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) {
      error = "TLS: the server closed the connection";
      return false;
    }
    tls.put_input(buffer.data(), static_cast<std::size_t>(n));
  }
}

}  // namespace

bool probe(const Endpoint& endpoint, std::chrono::milliseconds timeout, std::string& error) {
  const auto deadline = Clock::now() + timeout;
  const std::string where = "redis at " + endpoint.text + ": ";
  Socket s(::socket(endpoint.address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (s.fd() < 0) {
    error = where + std::strerror(errno);
    return false;
  }
  if (::connect(s.fd(), reinterpret_cast<const sockaddr*>(&endpoint.address), endpoint.length) < 0 &&
      errno != EINPROGRESS) {
    error = where + std::strerror(errno);
    return false;
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  if (!wait_for(s.fd(), POLLOUT, deadline) || ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &so_error, &len) < 0 ||
      so_error != 0) {
    error = where + (so_error ? std::strerror(so_error) : "connect timed out");
    return false;
  }
  std::unique_ptr<TlsSession> tls;
  if (endpoint.tls) {
    tls = std::make_unique<TlsSession>(*endpoint.tls_context, endpoint.host);
    if (!tls_handshake(s.fd(), *tls, deadline, error)) {
      error = where + error;
      return false;
    }
  }
  std::string request;
  const std::size_t expected = append_session_setup(request, endpoint) + 1;
  append_command(request, {"PING"});
  if (tls && !tls->encrypt(request)) {
    error = where + "TLS: " + tls->error();
    return false;
  }
  if (tls) {
    request.clear();
    tls->take_output(request);
  }
  if (!send_all(s.fd(), request, deadline)) {
    error = where + "cannot send";
    return false;
  }
  ReplyReader reader;
  std::array<char, 512> buffer;
  std::string plain;
  std::size_t answered = 0;
  while (answered < expected) {
    if (!wait_for(s.fd(), POLLIN, deadline)) {
      error = where + "no answer to PING";
      return false;
    }
    ssize_t n = ::recv(s.fd(), buffer.data(), buffer.size(), 0);
    std::string_view data(buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
    if (tls && n > 0) {
      tls->put_input(buffer.data(), static_cast<std::size_t>(n));
      plain.clear();
      if (!tls->decrypt(plain)) {
        error = where + "TLS: " + tls->error();
        return false;
      }
      data = plain;
    }
    bool broken = n <= 0 || !reader.feed(data.data(), data.size());
    while (!broken) {
      Reply r = reader.next(broken);
      if (!r) break;
      if (r->type == REDIS_REPLY_ERROR) {
        error = where + std::string(r->str, r->len);
        return false;
      }
      ++answered;
    }
    if (broken) {
      error = where + "not a Redis server, or it closed the connection";
      return false;
    }
  }
  return true;
}

}  // namespace storeapi::redis
