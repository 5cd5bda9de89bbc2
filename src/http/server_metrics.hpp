#pragma once
// The HTTP server's metrics, one instance per core: handles into the process registry,
// looked up once, so counting a request is a few single-writer stores (metrics/cells.hpp).
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "http/request_reader.hpp"
#include "http/route_label.hpp"
#include "metrics/registry.hpp"

namespace storeapi::http {

class ServerMetrics {
 public:
  // `routes`: the handler's routes, each with its duration series made up front.
  explicit ServerMetrics(std::span<const RouteLabel> routes);

  // One answered request: counted by method, route template and status; its duration
  // observed by route. `route` null: no route matched ("unmatched", never the raw path).
  void request_done(std::string_view method, const RouteLabel* route, int status, double seconds);
  void rejected(Rejection why);

  metrics::Counter& accepted;
  metrics::Gauge& open;
  metrics::Counter& refused;
  metrics::Counter& deadline_closed;
  metrics::Counter& received_bytes;
  metrics::Counter& sent_bytes;
  metrics::Gauge& in_flight;

 private:
  metrics::Family<metrics::Counter>& requests_;
  std::vector<metrics::Counter*> rejections_;  // by Rejection
  // By route index; the last one for "unmatched".
  std::vector<metrics::Histogram*> durations_;
  // (route, method, status) -> series, filled on first sight; only this core reads it.
  std::unordered_map<std::uint32_t, metrics::Counter*> by_key_;
};

}  // namespace storeapi::http
