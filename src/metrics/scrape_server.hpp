#pragma once
// The /metrics listener: a thread of its own with blocking sockets, one scrape at a time.
// Scrapes come a few times a minute; keeping them off the cores' rings means rendering
// and /proc reads never delay a request, and a scrape is answered even while every core
// is saturated (docs/DECISIONS.md, "Metrics").
#include <cstdint>
#include <thread>

#include "metrics/registry.hpp"
#include "runtime/net.hpp"

namespace storeapi::metrics {

class ScrapeServer {
 public:
  // Binds at once (throws std::system_error when the address is taken: the port is not
  // shared, so a second process cannot answer scrapes meant for the first).
  ScrapeServer(const runtime::ListenAddress& address, const Registry& registry);
  ~ScrapeServer();
  ScrapeServer(const ScrapeServer&) = delete;
  ScrapeServer& operator=(const ScrapeServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }

 private:
  void run();
  void answer(int fd);

  const Registry& registry_;
  int listen_fd_;
  int stop_fd_;
  std::uint16_t port_;
  std::thread thread_;
};

}  // namespace storeapi::metrics
