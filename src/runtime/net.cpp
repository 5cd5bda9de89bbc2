#include "runtime/net.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

namespace storeapi::runtime {
namespace {

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

}  // namespace

bool ListenAddress::parse(const std::string& text, ListenAddress& out) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
  unsigned long p = std::stoul(port);
  if (p > 65535) return false;
  // An address, never a name: the listener binds exactly it, and a name would need a
  // resolver at start (and could resolve to several addresses).
  unsigned char parsed[sizeof(in6_addr)];
  if (inet_pton(AF_INET, host.c_str(), parsed) != 1 && inet_pton(AF_INET6, host.c_str(), parsed) != 1) return false;
  out.host = host;
  out.port = static_cast<std::uint16_t>(p);
  return true;
}

std::string ListenAddress::text() const {
  const std::string port_text = std::to_string(port);
  return host.find(':') == std::string::npos ? host + ":" + port_text : "[" + host + "]:" + port_text;
}

int bind_tcp(const ListenAddress& address, bool share_port) {
  sockaddr_storage storage{};
  socklen_t len = 0;
  int family = AF_INET;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, address.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(address.port);
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, address.host.c_str(), &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(address.port);
    len = sizeof *v6;
  } else {
    throw std::system_error(EINVAL, std::generic_category(), "listen address " + address.host);
  }
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_errno("socket");
  int one = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      (share_port && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0)) {
    ::close(fd);
    throw_errno("setsockopt");
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), len) < 0) {
    int e = errno;
    ::close(fd);
    throw std::system_error(e, std::generic_category(), "bind " + address.host + ":" + std::to_string(address.port));
  }
  return fd;
}

void start_listening(int fd, int backlog) {
  if (::listen(fd, backlog) < 0) throw_errno("listen");
}

int listen_tcp(const ListenAddress& address, int backlog, bool share_port) {
  int fd = bind_tcp(address, share_port);
  try {
    start_listening(fd, backlog);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

bool port_taken(const ListenAddress& address) {
  if (address.port == 0) return false;
  try {
    ::close(bind_tcp(address, /*share_port=*/false));
    return false;
  } catch (const std::system_error& e) {
    if (e.code().value() == EADDRINUSE) return true;
    throw;
  }
}

std::uint16_t local_port(int fd) {
  sockaddr_storage storage{};
  socklen_t len = sizeof storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &len) < 0) throw_errno("getsockname");
  if (storage.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
}

Acceptor::Acceptor(int listen_fd, std::function<void(int)> on_accept)
    : Completion{&Acceptor::on_complete_cb}, listen_fd_(listen_fd), on_accept_(std::move(on_accept)) {}

void Acceptor::start() {
  started_ = true;
  arm();
}

void Acceptor::arm() {
  io_uring_sqe* sqe = Reactor::current().get_sqe();
  io_uring_prep_multishot_accept(sqe, listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  io_uring_sqe_set_data(sqe, static_cast<Completion*>(this));
}

void Acceptor::stop(std::function<void()> on_closed) {
  if (stopping_) return;
  stopping_ = true;
  on_closed_ = std::move(on_closed);
  if (!started_) return close_listener();
  io_uring_sqe* sqe = Reactor::current().get_sqe();
  io_uring_prep_cancel_fd(sqe, listen_fd_, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, 0);
}

void Acceptor::arm_after_pause() {
  io_uring_sqe* sqe = Reactor::current().get_sqe();
  io_uring_prep_timeout(sqe, &retry_pause_, 0, 0);
  io_uring_sqe_set_data(sqe, static_cast<Completion*>(&retry_));
}

void Acceptor::close_listener() {
  if (listen_fd_ < 0) return;
  // Closing a listener resets the connections in its queue. Take them first, so that a
  // client that connected before the close is served (another process may be listening
  // on the same port, SO_REUSEPORT, to take over: its share of new ones goes there).
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  for (int fd; (fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) take(fd);
  ::close(listen_fd_);
  listen_fd_ = -1;
  if (on_closed_) std::exchange(on_closed_, nullptr)();
}

void Acceptor::take(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  on_accept_(fd);
}

void Acceptor::on_complete_cb(Completion* self, int res, unsigned flags) {
  auto* a = static_cast<Acceptor*>(self);
  bool transient = res == -ECANCELED || res == -EAGAIN || res == -EINTR || res == -ECONNABORTED;
  if (res >= 0) {
    a->take(res);  // also when it raced with stop(): its client connected before the close
  } else if (!transient) {
    // EMFILE/ENFILE and friends: keep serving the connections we have and try again
    // after a pause (re-arming at once would spin while the backlog stays non-empty).
    std::fprintf(stderr, "storeapi: accept failed: %s\n", std::strerror(-res));
  }
  if (flags & IORING_CQE_F_MORE) return;
  if (a->stopping_) return a->close_listener();
  if (res < 0 && !transient) return a->arm_after_pause();
  a->arm();
}

void Acceptor::on_retry(Completion* self, int, unsigned) {
  Acceptor* a = static_cast<RetryCompletion*>(self)->acceptor;
  if (a->stopping_) return a->close_listener();
  a->arm();
}

}  // namespace storeapi::runtime
