#pragma once
// A real http::Server with a test's handler, on one core of its own (a real reactor and
// real sockets); drained and stopped at the end.
#include <cstdint>
#include <functional>
#include <future>
#include <memory>

#include "http/server.hpp"
#include "runtime/cores.hpp"
#include "runtime/net.hpp"

namespace storeapi::http {

class ServedByOneCore {
 public:
  explicit ServedByOneCore(Handler& handler, runtime::Reactor::Options reactor_options = {},
                           ServerOptions options = {})
      : listen_fd_(runtime::listen_tcp({"127.0.0.1", 0})) {
    port_ = runtime::local_port(listen_fd_);
    options.access_log = AccessLogFormat::off;
    cores_ = std::make_unique<runtime::Cores>(1, [&](runtime::Reactor&) {
      server_ = std::make_unique<Server>(listen_fd_, handler, options);
      server_->start();
    }, reactor_options);
  }
  ~ServedByOneCore() {
    cores_->post_all([this](runtime::Reactor& reactor) { server_->drain([&reactor] { reactor.stop(); }); });
    cores_->join();
  }
  std::uint16_t port() const { return port_; }
  // For on_core() only: the server lives on the core's thread.
  Server& server() { return *server_; }

  // Runs `fn` on the core and returns its result.
  template <class Fn>
  auto on_core(Fn fn) {
    std::promise<decltype(fn())> result;
    cores_->post_to(0, [&] { result.set_value(fn()); });
    return result.get_future().get();
  }

 private:
  int listen_fd_;
  std::uint16_t port_ = 0;
  std::unique_ptr<Server> server_;          // destroyed after the core stopped
  std::unique_ptr<runtime::Cores> cores_;
};

}  // namespace storeapi::http
