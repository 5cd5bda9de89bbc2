#pragma once
// One labelled series of a metric family: a counter, a gauge or a histogram. Handles are
// stable for the registry's lifetime; code on the request path looks one up once (it
// takes the registry's lock) and keeps the reference.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "metrics/cells.hpp"

namespace storeapi::metrics {

class Counter {
 public:
  explicit Counter(unsigned cores) : cells_(cores, 1) {}
  void inc(std::uint64_t n = 1) noexcept { cells_.add(0, n); }
  std::uint64_t value() const noexcept { return cells_.total(0); }

 private:
  Cells cells_;
};

// A value that goes up and down (in-flight requests, open connections): each core adds
// its own deltas, the scrape sums them (two's complement, so negative deltas add up).
class Gauge {
 public:
  explicit Gauge(unsigned cores) : cells_(cores, 1) {}
  void add(std::int64_t delta) noexcept { cells_.add(0, static_cast<std::uint64_t>(delta)); }
  void inc() noexcept { add(1); }
  void dec() noexcept { add(-1); }
  std::int64_t value() const noexcept { return static_cast<std::int64_t>(cells_.total(0)); }

 private:
  Cells cells_;
};

// Buckets by upper bound (`le`, inclusive), plus +Inf; the scrape makes them cumulative.
class Histogram {
 public:
  Histogram(unsigned cores, std::span<const double> bounds)
      : bounds_(bounds.begin(), bounds.end()), cells_(cores, static_cast<unsigned>(bounds.size()) + 2) {}

  void observe(double value) noexcept {
    auto bucket = static_cast<unsigned>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
    cells_.add(bucket, 1);
    cells_.add_double(sum_cell(), value);
  }

  std::span<const double> bounds() const noexcept { return bounds_; }
  // Observations in bucket i alone (i == bounds().size(): above the last bound).
  std::uint64_t bucket(unsigned i) const noexcept { return cells_.total(i); }
  // (No count cell: the count is the buckets' sum, one store less per observation.)
  std::uint64_t count() const noexcept {
    std::uint64_t n = 0;
    for (unsigned i = 0; i <= bounds_.size(); ++i) n += bucket(i);
    return n;
  }
  double sum() const noexcept { return cells_.total_double(sum_cell()); }

 private:
  unsigned sum_cell() const noexcept { return static_cast<unsigned>(bounds_.size()) + 1; }

  std::vector<double> bounds_;
  Cells cells_;
};

// Request and database durations, in seconds: 50 µs to 10 s.
std::span<const double> latency_buckets() noexcept;

}  // namespace storeapi::metrics
