#pragma once
// A datagram socket standing in for systemd's $NOTIFY_SOCKET in tests: bound to a fresh
// abstract address, it collects what a process sends with sd_notify.
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

namespace storeapi::testing {

class NotifySocket {
 public:
  NotifySocket() {
    name_ = "@storeapi-test-notify-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}());
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    name_.copy(address.sun_path, name_.size());
    address.sun_path[0] = '\0';
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address),
                          static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size())) != 0)
      throw std::runtime_error("cannot bind a notify socket");
  }
  ~NotifySocket() { ::close(fd_); }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  // The value for NOTIFY_SOCKET ('@' = abstract namespace, as systemd writes it).
  const std::string& name() const { return name_; }

  // The next datagram, or nullopt when none arrives within `timeout`.
  std::optional<std::string> receive(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n < 0) return std::nullopt;
    return std::string(buffer, static_cast<std::size_t>(n));
  }

 private:
  int fd_ = -1;
  std::string name_;
};

}  // namespace storeapi::testing
