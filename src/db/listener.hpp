#pragma once
// One LISTEN connection: delivers NOTIFY payloads of a channel to a callback on its core.
// After every (re)connection it first reports "*", because notifications sent while it was
// away are lost and whoever caches must start over.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/task.hpp"

namespace storeapi::db {

// A LISTEN connection only ever reads, so a peer that vanished without a FIN or RST (a
// half-open connection: a partition, a frozen host) would leave it waiting for ever, and
// invalidations unheard until the caches' TTL. So when the connection has been quiet for
// `idle_before_ping` the listener sends an empty query, and a connection that does not
// answer it within `ping_timeout` is given up and made again (reporting "*").
struct ListenerOptions {
  std::chrono::milliseconds idle_before_ping{10'000};
  std::chrono::milliseconds ping_timeout{5'000};
};

class Listener {
 public:
  using OnNotify = std::function<void(std::string_view payload)>;

  Listener(std::string url, std::string channel, OnNotify on_notify, ListenerOptions options = {});
  // Starts on the calling core (inside its reactor); runs until the process ends.
  void start();
  bool listening() const noexcept { return listening_; }

 private:
  runtime::task<void> drive();
  runtime::task<bool> listen_once();

  std::string url_;
  std::string channel_;
  OnNotify on_notify_;
  ListenerOptions options_;
  bool listening_ = false;
};

}  // namespace storeapi::db
