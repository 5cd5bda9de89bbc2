#pragma once
// Where a request's time goes: the server times each request's stages and counts the
// durations in the metrics family storeapi_request_stage_seconds{stage="..."} (one
// histogram series per stage, buckets 1 µs .. 10 s). The series keep per-core cells
// (metrics/cells.hpp): a core writes only its own, with relaxed stores and no lock; the
// /metrics scrape sums them. Switched on once at startup (STOREAPI_STAGE_TIMING); when
// off the family is never registered (absent from /metrics) and every record() is one
// predictable branch.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>

#include "metrics/registry.hpp"

namespace storeapi::stage_timing {

enum class Stage : std::uint8_t {
  read_wait,  // the request's bytes received until its parsing starts (pipelined requests wait)
  parse,      // the request head and body through llhttp
  auth,       // key lookup (cache or database) and rate limit
  db_queue,     // a unit waiting in its core's pool for a database connection
  db_pipeline,  // a unit sent, waiting behind the units pipelined before it on its connection
  db,           // a unit first in line on its connection until its last answer is read
  render,     // the handler's own work: everything but auth and its units' database time
  send,       // the answer serialized until the kernel took the last byte
  total,      // the request's bytes received until its answer was sent
};
inline constexpr std::size_t kStageCount = 9;
std::string_view name(Stage stage) noexcept;

using Clock = std::chrono::steady_clock;

inline constexpr std::string_view kFamily = "storeapi_request_stage_seconds";
// The family's bucket bounds in seconds: 1, 1.5, 2, 3, 5, 7 per decade from 1 µs to 10 s
// (parse and auth take microseconds, a saturated request seconds).
std::span<const double> buckets() noexcept;

namespace detail {
extern bool enabled;
void record(Stage stage, std::uint64_t ns) noexcept;
}  // namespace detail

// Call before any core starts, after `registry`'s set_cores(); on registers the family
// with one series per stage in `registry`, off leaves it out. Records go to the series
// of the last enable(true).
void enable(bool on, metrics::Registry& registry = metrics::Registry::process());
inline bool enabled() noexcept { return detail::enabled; }

// Counts one duration of `stage` on the calling thread's histograms.
inline void record(Stage stage, Clock::duration d) noexcept {
  if (enabled()) detail::record(stage, static_cast<std::uint64_t>(std::max<Clock::rep>(0, std::chrono::nanoseconds(d).count())));
}
inline void record_since(Stage stage, Clock::time_point start) noexcept {
  if (enabled()) record(stage, Clock::now() - start);
}
// The current time when timing is on, else no clock read at all (the epoch).
inline Clock::time_point now_if_enabled() noexcept { return enabled() ? Clock::now() : Clock::time_point{}; }

// One stage, timed from the timer's construction to its stop(), or to its end when stop()
// was not called: the stage is counted exactly once, however its scope is left (a
// co_return, an exception), and with timing off no clock is read. cancel() counts
// nothing: the stage did not happen (no whole request to parse, a send that failed).
// The stages timed from a db::Unit's own timestamps (db_queue, db_pipeline, db) are
// counted where the pool has them (db/pool.cpp).
class [[nodiscard]] Timer {
 public:
  explicit Timer(Stage stage) noexcept : stage_(stage), started_(now_if_enabled()), running_(enabled()) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer() { stop(); }

  // When it started (the epoch with timing off).
  Clock::time_point started() const noexcept { return started_; }
  // Counts the stage now, less `excluded` (time the stage spent in other stages), and
  // returns what it counted: zero with timing off, or when already stopped or cancelled.
  Clock::duration stop(Clock::duration excluded = {}) noexcept {
    if (!running_) return {};
    running_ = false;
    const Clock::duration d = Clock::now() - started_ - excluded;
    record(stage_, d);
    return d;
  }
  void cancel() noexcept { running_ = false; }

 private:
  Stage stage_;
  Clock::time_point started_;
  bool running_;
};

// What one request spent in auth and in its database units, so that the rest of its
// handler's time can be counted as render; the database parts are kept with timing off
// too (they cost no clock read of their own: db::Unit::database_time), for the access
// log's db_us.
struct Tally {
  Clock::duration auth{};        // with timing on: authentication, key_lookup included
  Clock::duration db{};          // the handler's own database units
  Clock::duration key_lookup{};  // the key's database lookup when the key cache missed
  Clock::duration database() const noexcept { return db + key_lookup; }
};

}  // namespace storeapi::stage_timing
