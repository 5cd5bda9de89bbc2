#pragma once
// Open-loop HTTP load (in the manner of wrk2): the k-th request of connection c is due at
// start + (k * connections + c) / rate, whether or not the server kept up, and its latency
// is measured from that intended instant, not from when it could be sent. A server that
// stalls therefore shows the queueing its clients would see (no coordinated omission).
// Each connection keeps one request in flight; a request whose predecessor answered late
// is sent at once. rate 0 is closed-loop (back to back, like wrk): the saturation rate.
// Runs on the project's io_uring runtime, one reactor per generator thread.
#include <chrono>
#include <cstdint>
#include <string>

#include "histogram.hpp"
#include "request_template.hpp"

namespace storeapi::bench {

struct LoadPlan {
  double rate = 0;  // requests per second over all connections; 0: closed loop
  unsigned connections = 1;
  unsigned threads = 1;
  std::chrono::nanoseconds duration = std::chrono::seconds(10);
  // How long requests due before the end may still take to be answered; those that are
  // not answered by then are reported as unfinished.
  std::chrono::nanoseconds drain = std::chrono::seconds(5);
};

// When request `k` of connection `connection` is due, counted from the start.
std::chrono::nanoseconds intended_offset(const LoadPlan& plan, unsigned connection, std::uint64_t k) noexcept;

struct LoadResult {
  LatencyHistogram latency;   // every answered request, from its intended send time
  std::uint64_t answered = 0;
  std::uint64_t non_2xx = 0;       // answered with a status outside 200..299
  std::uint64_t broken = 0;        // connection closed or malformed answer (reconnected)
  std::uint64_t unfinished = 0;    // due before the end, not answered before the drain ran out
  double seconds = 0;              // from the start to the last answer
};

// Runs `plan` against 127.0.0.1:port. Throws std::system_error when it cannot connect.
LoadResult run_load(const LoadPlan& plan, const RequestTemplate& requests, std::uint16_t port);

}  // namespace storeapi::bench
