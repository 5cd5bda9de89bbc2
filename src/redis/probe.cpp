#include "redis/probe.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "redis/protocol.hpp"

namespace storeapi::redis {
namespace {

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

bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  pollfd p{fd, events, 0};
  return left.count() > 0 && ::poll(&p, 1, static_cast<int>(left.count())) == 1;
}

}  // namespace

void probe(const Endpoint& endpoint, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
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
  std::string request;
  const std::string database = std::to_string(endpoint.database);
  append_command(request, {"SELECT", database});
  append_command(request, {"PING"});
  if (::send(s.fd(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
    throw std::runtime_error(where + "cannot send");
  ReplyReader reader;
  std::array<char, 512> buffer;
  int answered = 0;
  while (answered < 2) {
    if (!wait_for(s.fd(), POLLIN, deadline))
      throw std::runtime_error(where + "no answer to PING");
    ssize_t n = ::recv(s.fd(), buffer.data(), buffer.size(), 0);
    bool broken = n <= 0 || !reader.feed(buffer.data(), static_cast<std::size_t>(n));
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
