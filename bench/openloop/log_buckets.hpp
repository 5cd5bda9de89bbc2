#pragma once
// Log-linear histogram buckets in the manner of HdrHistogram, for latencies in
// nanoseconds: values below 256 have a bucket each, every power-of-two range above is
// split into 128 equal buckets, so a bucket's width is at most 1/128 of its values, from
// 1 ns to 2^40 ns (about 18 minutes; larger values share the top bucket). The open-loop
// generator's histogram (histogram.hpp); the server's histograms are Prometheus families
// with fixed bounds (src/metrics).
#include <bit>
#include <cstdint>

namespace storeapi::log_buckets {

inline constexpr unsigned kSubBucketBits = 7;
inline constexpr std::uint64_t kHalf = std::uint64_t{1} << kSubBucketBits;  // buckets per range
inline constexpr std::uint64_t kLinearLimit = 2 * kHalf;                    // exact below this
inline constexpr unsigned kTopMagnitude = 40;
inline constexpr unsigned kCount =
    static_cast<unsigned>(kLinearLimit + (kTopMagnitude - kSubBucketBits - 1) * kHalf);

constexpr unsigned bucket_of(std::uint64_t ns) noexcept {
  if (ns < kLinearLimit) return static_cast<unsigned>(ns);
  // ns lies in [2^m, 2^(m+1)); its top kSubBucketBits + 1 bits (kHalf .. 2*kHalf-1) pick
  // the bucket within that range.
  const unsigned m = static_cast<unsigned>(std::bit_width(ns)) - 1;
  if (m >= kTopMagnitude) return kCount - 1;
  const unsigned shift = m - kSubBucketBits;
  return static_cast<unsigned>(kLinearLimit + (m - kSubBucketBits - 1) * kHalf + ((ns >> shift) - kHalf));
}

// The largest value counted in `bucket`.
constexpr std::uint64_t highest_in(unsigned bucket) noexcept {
  if (bucket < kLinearLimit) return bucket;
  const unsigned above = bucket - static_cast<unsigned>(kLinearLimit);
  const unsigned shift = above / static_cast<unsigned>(kHalf) + 1;
  const std::uint64_t lowest = (kHalf + above % kHalf) << shift;
  return lowest + (std::uint64_t{1} << shift) - 1;
}

}  // namespace storeapi::log_buckets
