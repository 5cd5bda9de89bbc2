#include "histogram.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace storeapi::bench {

using log_buckets::bucket_of;
using log_buckets::highest_in;

void LatencyHistogram::record(std::uint64_t ns) noexcept {
  ++counts_[bucket_of(ns)];
  ++total_;
  max_ = std::max(max_, ns);
  min_ = std::min(min_, ns);
  sum_ += ns;
  sum_squares_ += static_cast<long double>(ns) * ns;
}

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  for (unsigned i = 0; i < log_buckets::kCount; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

double LatencyHistogram::mean() const noexcept {
  return total_ ? static_cast<double>(sum_ / total_) : 0.0;
}

double LatencyHistogram::stddev() const noexcept {
  if (total_ == 0) return 0.0;
  const long double m = sum_ / total_;
  return std::sqrt(static_cast<double>(std::max<long double>(0, sum_squares_ / total_ - m * m)));
}

std::uint64_t LatencyHistogram::percentile(double percentile) const noexcept {
  if (total_ == 0) return 0;
  if (percentile >= 100.0) return max_;
  const auto target = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(percentile / 100.0 * static_cast<double>(total_))));
  std::uint64_t seen = 0;
  for (unsigned i = 0; i < log_buckets::kCount; ++i) {
    seen += counts_[i];
    if (seen >= target) return std::min(highest_in(i), max_);
  }
  return max_;
}

void LatencyHistogram::write_hgrm(std::ostream& out) const {
  out << "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
  std::uint64_t seen = 0;
  char line[128];
  for (unsigned i = 0; i < log_buckets::kCount; ++i) {
    if (counts_[i] == 0) continue;
    seen += counts_[i];
    const double fraction = static_cast<double>(seen) / static_cast<double>(total_);
    const double value_us = static_cast<double>(std::min(highest_in(i), max_)) / 1e3;
    if (seen == total_)
      std::snprintf(line, sizeof line, "%12.3f %14.12f %10llu\n", value_us, fraction,
                    static_cast<unsigned long long>(seen));
    else
      std::snprintf(line, sizeof line, "%12.3f %14.12f %10llu %14.2f\n", value_us, fraction,
                    static_cast<unsigned long long>(seen), 1.0 / (1.0 - fraction));
    out << line;
  }
  std::snprintf(line, sizeof line, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean() / 1e3, stddev() / 1e3);
  out << line;
  std::snprintf(line, sizeof line, "#[Max     = %12.3f, Total count    = %12llu]\n",
                static_cast<double>(max_) / 1e3, static_cast<unsigned long long>(total_));
  out << line;
}

}  // namespace storeapi::bench
