#include "http/server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include "http/connection.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

#include <algorithm>

namespace storeapi::http {

Server::Server(int listen_fd, Handler& handler, ServerOptions options)
    : handler_(handler),
      options_(options),
      acceptor_(listen_fd, [this](int fd) { on_accept(fd); }),
      log_(options.access_log_fd, options.access_log),
      metrics_(options.routes) {}

Server::~Server() = default;

void Server::start() {
  acceptor_.start();
  runtime::spawn(sweep_deadlines());
}

runtime::task<void> Server::sweep_deadlines() {
  // A deadline is honoured within one tick: an eighth of the shortest timeout, between
  // 10 ms and 250 ms (10 s request deadline: within 250 ms). The buffer pools are trimmed
  // at the first tick of each trim period.
  auto shortest = std::min({options_.request_timeout, options_.idle_timeout, options_.send_timeout});
  auto tick = std::clamp<std::chrono::milliseconds>(shortest / 8, std::chrono::milliseconds(10),
                                                    std::chrono::milliseconds(250));
  auto next_trim = runtime::Clock::now() + options_.buffer_trim_period;
  for (;;) {
    co_await runtime::sleep_for(tick);
    auto now = runtime::Clock::now();
    for (Connection* c = head_; c; c = c->next) c->expire_if_due(now);
    if (now >= next_trim) {
      trim_buffer_pools();
      next_trim = now + options_.buffer_trim_period;
    }
  }
}

void Server::on_accept(int fd) {
  metrics_.accepted.inc();
  // While draining, only connections that were already queued when the listener closed
  // arrive here: their clients connected before it did, so they are served.
  if (count_ >= options_.max_connections) return refuse(fd);
  runtime::spawn(serve_connection(*this, fd));
}

void Server::refuse(int fd) {
  // Past the connection limit: one best-effort 503 without waiting, then close.
  metrics_.refused.inc();
  Response res;
  std::string out;
  std::string_view id = next_request_id();
  handler_.reject(Rejection::too_many_connections, id, res);
  serialize(res, {id, false, false, false}, out);
  [[maybe_unused]] auto n = ::send(fd, out.data(), out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::close(fd);
}

void Server::drain(std::function<void()> on_drained) {
  draining_ = true;
  on_drained_ = std::move(on_drained);
  for (Connection* c = head_; c; c = c->next) {
    if (c->idle()) runtime::Reactor::current().cancel_fd(c->fd());
  }
  acceptor_.stop([this] {
    listener_closed_ = true;
    finish_drain_if_done();
  });
}

void Server::finish_drain_if_done() {
  // The last connections' access log lines are written before the core may stop.
  if (draining_ && listener_closed_ && count_ == 0 && on_drained_) log_.when_flushed(std::exchange(on_drained_, nullptr));
}

void Server::link(Connection* c) noexcept {
  c->next = head_;
  if (head_) head_->prev = c;
  head_ = c;
  ++count_;
}

void Server::unlink(Connection* c) noexcept {
  if (c->prev) c->prev->next = c->next;
  else head_ = c->next;
  if (c->next) c->next->prev = c->prev;
  --count_;
  finish_drain_if_done();
}

}  // namespace storeapi::http
