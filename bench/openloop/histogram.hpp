#pragma once
// A latency histogram in the manner of HdrHistogram: log-linear buckets over the whole
// range (log_buckets.hpp), so that p99.99 and the maximum are as exact as the
// median, at a fixed relative error (at most 1/128 of the value) and a fixed size (35 KB).
// Debian packages no C/C++ HdrHistogram, hence this one.
#include <array>
#include <cstdint>
#include <iosfwd>

#include "log_buckets.hpp"

namespace storeapi::bench {

class LatencyHistogram {
 public:
  // Counts one value (nanoseconds); values past the top are counted in the top bucket,
  // the maximum stays exact.
  void record(std::uint64_t ns) noexcept;
  void merge(const LatencyHistogram& other) noexcept;

  std::uint64_t count() const noexcept { return total_; }
  std::uint64_t max() const noexcept { return max_; }
  std::uint64_t min() const noexcept { return total_ ? min_ : 0; }
  double mean() const noexcept;
  double stddev() const noexcept;
  // The highest value equivalent to the one at `percentile` (0..100]: the answer is never
  // below the true percentile; p100 is the exact maximum.
  std::uint64_t percentile(double percentile) const noexcept;

  // The percentile distribution in HdrHistogram's .hgrm text format (Value, Percentile,
  // TotalCount, 1/(1-Percentile)), one line per non-empty bucket, values in microseconds:
  // the file HdrHistogram's plotter and bench/openloop/plot_hgrm.gp read.
  void write_hgrm(std::ostream& out) const;

 private:
  std::array<std::uint64_t, log_buckets::kCount> counts_{};
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  long double sum_ = 0;
  long double sum_squares_ = 0;
};

}  // namespace storeapi::bench
