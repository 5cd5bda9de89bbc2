#include "admin/seed/random.hpp"

#include "common/uuid.hpp"

namespace storeapi::admin::seed {

std::int64_t Random::between(std::int64_t lo, std::int64_t hi) {
  auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(engine_() % span);
}

bool Random::chance(double probability) {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53 < probability;
}

std::size_t Random::weighted(std::initializer_list<int> weights) {
  int total = 0;
  for (int w : weights) total += w;
  auto r = between(0, total - 1);
  std::size_t i = 0;
  for (int w : weights) {
    if (r < w) return i;
    r -= w;
    ++i;
  }
  return weights.size() - 1;
}

std::size_t Random::cover(long position, std::initializer_list<int> weights) {
  if (position >= 0 && static_cast<std::size_t>(position) < weights.size())
    return static_cast<std::size_t>(position);
  return weighted(weights);
}

timefmt::Micros Random::time_between(timefmt::Micros lo, timefmt::Micros hi) {
  return between(lo / 1000, hi / 1000) * 1000;
}

std::string Random::uuid() {
  Uuid id;
  for (std::size_t half = 0; half < 2; ++half) {
    std::uint64_t bits = engine_();
    for (std::size_t i = 0; i < 8; ++i) id.bytes[half * 8 + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  id.bytes[6] = static_cast<std::uint8_t>(0x40 | (id.bytes[6] & 0x0f));
  id.bytes[8] = static_cast<std::uint8_t>(0x80 | (id.bytes[8] & 0x3f));
  return id.str();
}

std::string Random::digits(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>('0' + between(0, 9)));
  return out;
}

}  // namespace storeapi::admin::seed
