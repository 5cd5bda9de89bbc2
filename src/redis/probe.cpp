#include "redis/probe.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

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

// A TLS handshake on a blocking schedule; std::runtime_error (prefixed by `where`) when it
// fails.
void tls_handshake(int fd, TlsSession& tls, Clock::time_point deadline, const std::string& where) {
  std::array<char, 4096> buffer;
  for (;;) {
    const TlsSession::Step step = tls.handshake();
    std::string output;
    tls.take_output(output);
    if (!send_all(fd, output, deadline)) throw std::runtime_error(where + "TLS: cannot send");
    if (step == TlsSession::Step::done) return;
    if (step == TlsSession::Step::failed) throw std::runtime_error(where + "TLS: " + tls.error());
    if (!wait_for(fd, POLLIN, deadline)) throw std::runtime_error(where + "TLS: no answer in time");
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) throw std::runtime_error(where + "TLS: the server closed the connection");
    tls.put_input(buffer.data(), static_cast<std::size_t>(n));
  }
}

}  // namespace

void probe(const Endpoint& endpoint, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string where = "redis at " + endpoint.text + ": ";
  Socket s(::socket(endpoint.address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (s.fd() < 0)
    throw std::runtime_error(where + std::strerror(errno));
  if (::connect(s.fd(), reinterpret_cast<const sockaddr*>(&endpoint.address), endpoint.length) < 0 &&
      errno != EINPROGRESS)
    throw std::runtime_error(where + std::strerror(errno));
  int so_error = 0;
  socklen_t len = sizeof so_error;
  if (!wait_for(s.fd(), POLLOUT, deadline) || ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &so_error, &len) < 0 ||
      so_error != 0)
    throw std::runtime_error(where + (so_error ? std::strerror(so_error) : "connect timed out"));
  std::unique_ptr<TlsSession> tls;
  if (endpoint.tls) {
    tls = std::make_unique<TlsSession>(*endpoint.tls_context, endpoint.host);
    tls_handshake(s.fd(), *tls, deadline, where);
  }
  std::string request;
  const std::size_t expected = append_session_setup(request, endpoint) + 1;
  append_command(request, {"PING"});
  if (tls) {
    if (!tls->encrypt(request)) throw std::runtime_error(where + "TLS: " + tls->error());
    request.clear();
    tls->take_output(request);
  }
  if (!send_all(s.fd(), request, deadline))
    throw std::runtime_error(where + "cannot send");
  ReplyReader reader;
  std::array<char, 512> buffer;
  std::string plain;
  std::size_t answered = 0;
  while (answered < expected) {
    if (!wait_for(s.fd(), POLLIN, deadline))
      throw std::runtime_error(where + "no answer to PING");
    ssize_t n = ::recv(s.fd(), buffer.data(), buffer.size(), 0);
    std::string_view data(buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
    if (tls && n > 0) {
      tls->put_input(buffer.data(), static_cast<std::size_t>(n));
      plain.clear();
      if (!tls->decrypt(plain)) throw std::runtime_error(where + "TLS: " + tls->error());
      data = plain;
    }
    bool broken = n <= 0 || !reader.feed(data.data(), data.size());
    while (!broken) {
      Reply r = reader.next(broken);
      if (!r) break;
      if (r->type == REDIS_REPLY_ERROR)
        throw std::runtime_error(where + std::string(r->str, r->len));
      ++answered;
    }
    if (broken)
      throw std::runtime_error(where + "not a Redis server, or it closed the connection");
  }
}

}  // namespace storeapi::redis
