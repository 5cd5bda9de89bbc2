#pragma once
// The HTTP/1.1 server of one core: its listener, its connections, and graceful draining.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "http/access_log.hpp"
#include "http/handler.hpp"
#include "http/request_reader.hpp"
#include "http/route_label.hpp"
#include "http/server_metrics.hpp"
#include "runtime/net.hpp"
#include "runtime/task.hpp"

namespace storeapi::http {

struct ServerOptions {
  ReaderLimits limits;
  std::chrono::milliseconds request_timeout{10'000};  // whole request, from its first byte
  std::chrono::milliseconds idle_timeout{60'000};     // keep-alive wait for the next request
  std::chrono::milliseconds send_timeout{60'000};     // a peer that stops reading
  std::size_t max_connections = 10'000;               // on this core
  // How often the core's reader and response buffer pools free what no request borrowed
  // since the last time (trim_buffer_pools): after a burst of busy connections (a stall's
  // end) they come back to what steady traffic uses within two periods.
  std::chrono::milliseconds buffer_trim_period{10'000};
  AccessLogFormat access_log = AccessLogFormat::json;
  int access_log_fd = 1;
  // The TLS proxy's address (STOREAPI_TRUSTED_PROXY): only its X-Forwarded-For names
  // the client in the access log. Empty: nobody's.
  std::string trusted_proxy;
  // The handler's routes, by RouteLabel::index: the labels of the request metrics.
  std::span<const RouteLabel> routes;
};

class Connection;

class Server {
 public:
  Server(int listen_fd, Handler& handler, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  // Stops accepting, closes idle connections and lets busy ones finish their current
  // request. `on_drained` runs once the listener is closed (the connections still queued
  // on it taken), the last connection is gone and its access log lines are written.
  void drain(std::function<void()> on_drained);

  bool draining() const noexcept { return draining_; }
  std::size_t connections() const noexcept { return count_; }
  const ServerOptions& options() const noexcept { return options_; }
  Handler& handler() noexcept { return handler_; }
  AccessLog& access_log() noexcept { return log_; }
  ServerMetrics& metrics() noexcept { return metrics_; }

 private:
  friend class Connection;
  void on_accept(int fd);
  void refuse(int fd);
  void link(Connection* c) noexcept;
  void unlink(Connection* c) noexcept;
  void finish_drain_if_done();
  // Every tick: cancels the receives and sends whose connection deadline passed.
  runtime::task<void> sweep_deadlines();

  Handler& handler_;
  ServerOptions options_;
  runtime::Acceptor acceptor_;
  AccessLog log_;
  ServerMetrics metrics_;
  Connection* head_ = nullptr;
  std::size_t count_ = 0;
  bool draining_ = false;
  bool listener_closed_ = false;
  std::function<void()> on_drained_;
};

}  // namespace storeapi::http
