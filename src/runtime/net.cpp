#include "runtime/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

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
  out.host = host;
  out.port = static_cast<std::uint16_t>(p);
  return true;
}

int listen_tcp(const ListenAddress& address, int backlog, bool share_port) {
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
  if (::listen(fd, backlog) < 0) {
    ::close(fd);
    throw_errno("listen");
  }
  return fd;
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

void Acceptor::start() { arm(); }

void Acceptor::arm() {
  io_uring_sqe* sqe = Reactor::current().get_sqe();
  io_uring_prep_multishot_accept(sqe, listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  io_uring_sqe_set_data(sqe, static_cast<Completion*>(this));
}

void Acceptor::stop() {
  if (stopping_) return;
  stopping_ = true;
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
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void Acceptor::on_complete_cb(Completion* self, int res, unsigned flags) {
  auto* a = static_cast<Acceptor*>(self);
  bool transient = res == -ECANCELED || res == -EAGAIN || res == -EINTR || res == -ECONNABORTED;
  if (res >= 0) {
    if (a->stopping_) {
      ::close(res);  // raced with stop(): nobody will serve it
    } else {
      int one = 1;
      ::setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      a->on_accept_(res);
    }
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
