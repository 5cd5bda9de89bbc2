#pragma once
// The project's one LISTEN loop, used by the server (key invalidations) and the dispatcher
// (outbox wake-ups): LISTENs on a channel, delivers its NOTIFY payloads to a callback on
// its core, and when the connection fails reconnects with backoff (common/backoff.hpp) and
// LISTENs again. After every (re)connection it first reports "*", because notifications
// sent while it was away are lost: whoever caches must start over, whoever waits for work
// must look for it.
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "db/connect.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

// A LISTEN connection only ever reads, so a peer that vanished without a FIN or RST (a
// half-open connection: a partition, a frozen host) would leave it waiting for ever, and
// invalidations unheard until the caches' TTL. So when the connection has been quiet for
// `idle_before_ping` the listener pings, and a connection that does not answer within
// `ping_timeout` is given up and made again (reporting "*"). The ping is the LISTEN itself
// (a no-op when already listening), not an empty query: pg_stat_activity shows a
// session's last statement, and the admin tool finds the servers by it.
struct ListenerOptions {
  std::chrono::milliseconds idle_before_ping{10'000};
  std::chrono::milliseconds ping_timeout{5'000};
  // The connection's application_name: the admin tool counts the servers it waits for by
  // their LISTEN sessions named "storeapi" (src/admin/base/confirmations.cpp), so any other
  // program's listener names itself.
  std::string application_name = kServerApplicationName;
  // Each host's connect deadline and the socket's TCP_USER_TIMEOUT (db::ConnectOptions).
  std::chrono::milliseconds connect_timeout{1'000};
  std::chrono::milliseconds tcp_user_timeout{2'000};
};

class Listener {
 public:
  using OnNotify = std::function<void(std::string_view payload)>;

  Listener(std::string url, std::string channel, OnNotify on_notify, ListenerOptions options = {});
  // Starts on the calling core (inside its reactor); runs until the process ends.
  void start();
  // Whether LISTEN is in force now (between a "*" and the loss of that connection): the
  // programs export it as a gauge, so that an operator sees when notifications go
  // unheard. Any thread may read it.
  bool listening() const noexcept { return listening_.load(std::memory_order_relaxed); }

 private:
  runtime::task<void> drive();
  runtime::task<bool> listen_once();

  std::string url_;
  std::string channel_;
  OnNotify on_notify_;
  ListenerOptions options_;
  std::atomic<bool> listening_ = false;
};

}  // namespace storeapi::db
