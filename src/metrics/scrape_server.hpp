#pragma once
// The /metrics listener: a thread of its own with non-blocking sockets and poll(), serving
// several connections at once, each with one deadline for its whole exchange (request in,
// answer out), so a client trickling bytes neither holds the listener nor stays past it.
// Scrapes come a few times a minute; keeping them off the cores' rings means rendering
// and /proc reads never delay a request, and a scrape is answered even while every core
// is saturated (docs/DECISIONS.md, "Metrics").
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "metrics/registry.hpp"
#include "runtime/net.hpp"

namespace storeapi::metrics {

class ScrapeServer {
 public:
  // Prometheus's own scrape timeout is 10 s by default; an answer is rendered in
  // milliseconds, so only a stalled or hostile client ever meets this.
  static constexpr std::chrono::milliseconds kDefaultDeadline{5'000};
  // Connections served at once; a new one past this closes the oldest, so that a crowd of
  // slow clients cannot lock a scrape out either.
  static constexpr std::size_t kMaxConnections = 32;

  // Binds at once (throws std::system_error when the address is taken: the port is not
  // shared, so a second process cannot answer scrapes meant for the first).
  ScrapeServer(const runtime::ListenAddress& address, const Registry& registry,
               std::chrono::milliseconds deadline = kDefaultDeadline);
  ~ScrapeServer();
  ScrapeServer(const ScrapeServer&) = delete;
  ScrapeServer& operator=(const ScrapeServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection {
    int fd = -1;
    Clock::time_point deadline;
    std::string request;   // until its head is complete
    std::string answer;    // once it is
    std::size_t sent = 0;
  };

  void run();
  void accept_new();
  // Moves the connection forward; false once it is finished (answered or failed).
  bool advance(Connection& connection);
  std::string answer_to(std::string_view request) const;

  const Registry& registry_;
  const std::chrono::milliseconds deadline_;
  int listen_fd_;
  int stop_fd_;
  std::uint16_t port_;
  std::vector<Connection> connections_;  // the thread's own, oldest first
  std::thread thread_;
};

// The listener of `setting` (STOREAPI_METRICS_LISTEN, STOREAPI_DISPATCH_METRICS_LISTEN) on
// `address`. A taken address throws std::runtime_error naming the setting and its way out
// (another port, or off), as the API port's message does: the bind error alone names no
// setting.
std::unique_ptr<ScrapeServer> start_scrape_server(const char* setting, const runtime::ListenAddress& address,
                                                  const Registry& registry);

}  // namespace storeapi::metrics
