#include "metrics/scrape_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace storeapi::metrics {
namespace {

constexpr std::size_t kMaxRequestBytes = 16 * 1024;

}  // namespace

ScrapeServer::ScrapeServer(const runtime::ListenAddress& address, const Registry& registry,
                           std::chrono::milliseconds deadline)
    : registry_(registry),
      deadline_(deadline),
      listen_fd_(runtime::listen_tcp(address, 64, /*share_port=*/false)),
      stop_fd_(::eventfd(0, EFD_CLOEXEC)),
      port_(runtime::local_port(listen_fd_)) {
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  thread_ = std::thread([this] { run(); });
}

ScrapeServer::~ScrapeServer() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof one);
  thread_.join();
  for (const Connection& c : connections_) ::close(c.fd);
  ::close(listen_fd_);
  ::close(stop_fd_);
}

void ScrapeServer::run() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}});
    Clock::time_point next_deadline = Clock::time_point::max();
    for (const Connection& c : connections_) {
      fds.push_back({c.fd, static_cast<short>(c.answer.empty() ? POLLIN : POLLOUT), 0});
      next_deadline = std::min(next_deadline, c.deadline);
    }
    int timeout = -1;
    if (next_deadline != Clock::time_point::max()) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(next_deadline - Clock::now());
      timeout = static_cast<int>(std::max<std::chrono::milliseconds::rep>(left.count(), 0));
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0) continue;  // EINTR
    if (fds[1].revents) return;
    // Connections first (their poll entries follow the two fixed ones, in order), then
    // the new ones, which may close the oldest to make room.
    const Clock::time_point now = Clock::now();
    std::size_t i = 2;
    std::erase_if(connections_, [&](Connection& c) {
      bool ready = fds[i++].revents != 0;
      bool keep = now < c.deadline && (!ready || advance(c));
      if (!keep) ::close(c.fd);
      return !keep;
    });
    if (fds[0].revents) accept_new();
  }
}

void ScrapeServer::accept_new() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // EAGAIN: none left (or a transient error: poll says when to retry)
    if (connections_.size() >= kMaxConnections) {
      ::close(connections_.front().fd);
      connections_.erase(connections_.begin());
    }
    connections_.push_back({fd, Clock::now() + deadline_, {}, {}, 0});
  }
}

bool ScrapeServer::advance(Connection& c) {
  if (c.answer.empty()) {
    char buf[2048];
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    if (n == 0) return false;
    c.request.append(buf, static_cast<std::size_t>(n));
    if (c.request.find("\r\n\r\n") == std::string::npos) return c.request.size() < kMaxRequestBytes;
    c.answer = answer_to(c.request);
  }
  while (c.sent < c.answer.size()) {
    ssize_t n = ::send(c.fd, c.answer.data() + c.sent, c.answer.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    c.sent += static_cast<std::size_t>(n);
  }
  return false;  // answered: Connection: close
}

std::string ScrapeServer::answer_to(std::string_view request) const {
  std::string_view line = request.substr(0, request.find("\r\n"));
  bool metrics = line.starts_with("GET /metrics ") || line.starts_with("GET /metrics?");
  std::string body = metrics ? registry_.expose() : std::string("only GET /metrics here\n");
  return std::string(metrics ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 404 Not Found\r\n") + "Content-Type: " +
         (metrics ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8") +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

std::unique_ptr<ScrapeServer> start_scrape_server(const char* setting, const runtime::ListenAddress& address,
                                                  const Registry& registry) {
  try {
    return std::make_unique<ScrapeServer>(address, registry);
  } catch (const std::system_error& e) {
    const std::string name(setting);
    throw std::runtime_error(name + " " + address.text() + ": " + e.what() +
                             ": give each process on a host its own metrics port (" + name +
                             "=127.0.0.1:0 picks a free one, printed as \"metrics on\"), or set " + name + "=off");
  }
}

}  // namespace storeapi::metrics
