#include "support/tcp_forwarder.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace storeapi::testing {
namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Writes all of `data` (the sockets are blocking; loopback buffers take a test's traffic).
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

TcpForwarder::TcpForwarder(std::uint16_t target) : target_(target) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  socklen_t length = sizeof addr;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_, 64) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length) != 0 ||
      ::pipe2(wake_, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("tcp forwarder: ") + std::strerror(errno));
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { run(); });
}

TcpForwarder::~TcpForwarder() {
  cut();
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void TcpForwarder::cut() {
  if (stopping_.exchange(true)) return;
  [[maybe_unused]] auto n = ::write(wake_[1], "x", 1);
  thread_.join();
  ::close(listener_);  // refused from now on
}

void TcpForwarder::hold_after(int passed) {
  passing_ = passed;
  [[maybe_unused]] auto n = ::write(wake_[1], "h", 1);
}

void TcpForwarder::release() {
  passing_ = -1;
  [[maybe_unused]] auto n = ::write(wake_[1], "r", 1);
}

void TcpForwarder::run() {
  std::map<int, int> peer;  // each forwarded socket → the other end of its pair
  while (!stopping_) {
    // A held listener is not polled: its connections stay in the backlog.
    const bool holding = passing_ == 0;
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {holding ? -1 : listener_, POLLIN, 0}};
    for (const auto& [fd, other] : peer) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      char byte;
      [[maybe_unused]] auto n = ::read(wake_[0], &byte, 1);
    }
    if (fds[1].revents & POLLIN) {
      if (passing_ > 0) --passing_;  // a release() in between leaves it below 0: not held
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const sockaddr_in target = loopback(target_);
      if (client >= 0 && server >= 0 && ::connect(server, reinterpret_cast<const sockaddr*>(&target), sizeof target) == 0) {
        peer[client] = server;
        peer[server] = client;
      } else {
        if (client >= 0) ::close(client);
        if (server >= 0) ::close(server);
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const auto it = peer.find(fds[i].fd);
      if (it == peer.end()) continue;  // closed with its pair earlier in this round
      char buffer[16384];
      const ssize_t n = ::recv(it->first, buffer, sizeof buffer, 0);
      if (n > 0 && write_all(it->second, buffer, static_cast<std::size_t>(n))) continue;
      const int a = it->first, b = it->second;
      ::close(a);
      ::close(b);
      peer.erase(a);
      peer.erase(b);
    }
  }
  for (const auto& [fd, other] : peer) ::close(fd);
}

}  // namespace storeapi::testing
