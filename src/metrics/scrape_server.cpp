#include "metrics/scrape_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <string>
#include <string_view>

namespace storeapi::metrics {
namespace {

void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

ScrapeServer::ScrapeServer(const runtime::ListenAddress& address, const Registry& registry)
    : registry_(registry),
      listen_fd_(runtime::listen_tcp(address, 64, /*share_port=*/false)),
      stop_fd_(::eventfd(0, EFD_CLOEXEC)),
      port_(runtime::local_port(listen_fd_)),
      thread_([this] { run(); }) {}

ScrapeServer::~ScrapeServer() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof one);
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_fd_);
}

void ScrapeServer::run() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;  // EINTR
    if (fds[1].revents) return;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    answer(fd);
    ::close(fd);
  }
}

void ScrapeServer::answer(int fd) {
  // A client that sends nothing cannot hold the listener for more than two seconds.
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::string request;
  char buf[2048];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16 * 1024) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.append(buf, static_cast<std::size_t>(n));
  }
  std::string_view line(request);
  line = line.substr(0, line.find("\r\n"));
  bool metrics = line.starts_with("GET /metrics ") || line.starts_with("GET /metrics?");
  std::string body = metrics ? registry_.expose() : std::string("only GET /metrics here\n");
  std::string head = std::string(metrics ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 404 Not Found\r\n") +
                     "Content-Type: " +
                     (metrics ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8") +
                     "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  send_all(fd, head);
  send_all(fd, body);
}

}  // namespace storeapi::metrics
