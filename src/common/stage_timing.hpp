#pragma once
// Where a request's time goes: the server times each request's stages and counts the
// durations in one histogram per stage and per core (log-linear buckets,
// common/log_buckets.hpp). A core writes only its own histograms, with relaxed atomic
// stores and no read-modify-write, so recording takes no lock and shares no cache line;
// a reader on any thread sums the cores' histograms. Switched on once at startup
// (STOREAPI_STAGE_TIMING); when off, every record() is one predictable branch.
// Self-contained so that it can move onto the metrics registry of the observability
// work (issue 13) without touching the places that record.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

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

namespace detail {
extern bool enabled;
void record(Stage stage, std::uint64_t ns) noexcept;
}  // namespace detail

// Call before any core starts; never changed afterwards.
void enable(bool on) noexcept;
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

// What one request spent in auth and in its database units, so that the rest of its
// handler's time can be counted as render.
struct Tally {
  Clock::duration auth{};
  Clock::duration db{};
};

// The sum of every core's histograms: per stage, the non-empty buckets as (highest
// value in the bucket in ns, count), in ascending order.
using Buckets = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
std::array<Buckets, kStageCount> snapshot();

}  // namespace storeapi::stage_timing
