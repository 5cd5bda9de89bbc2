#pragma once
// Deterministic draws for the seed. Only mt19937_64's raw output is used (its sequence
// is fixed by the standard), never <random>'s distributions, whose results differ
// between library implementations.
#include "common/time.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <span>
#include <string>

namespace storeapi::admin::seed {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [lo, hi] (inclusive). The modulo bias is below 2^-40 for our ranges.
  std::int64_t between(std::int64_t lo, std::int64_t hi);
  bool chance(double probability);
  std::size_t index(std::size_t size) { return static_cast<std::size_t>(between(0, static_cast<std::int64_t>(size) - 1)); }

  template <typename T>
  const T& pick(std::span<const T> items) {
    return items[index(items.size())];
  }

  // An index drawn with the given relative weights.
  std::size_t weighted(std::initializer_list<int> weights);

  // Coverage first: the first weights.size() calls (position < size) return position,
  // so small seeds hold every value; later positions draw by weight.
  std::size_t cover(long position, std::initializer_list<int> weights);

  // A whole-millisecond time in [lo, hi].
  timefmt::Micros time_between(timefmt::Micros lo, timefmt::Micros hi);

  // A version-4-layout uuid from this generator's bits.
  std::string uuid();

  // `n` decimal digits.
  std::string digits(int n);

 private:
  std::mt19937_64 engine_;
};

}  // namespace storeapi::admin::seed
