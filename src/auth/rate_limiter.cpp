#include "auth/rate_limiter.hpp"

#include <algorithm>
#include <cstring>

namespace storeapi::auth {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;  // RateBucket's unit: nanoseconds

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

Gcra::Gcra(std::int64_t per_minute, std::int64_t units_per_second) noexcept
    : per_minute_(std::max<std::int64_t>(per_minute, 1)),
      units_per_second_(units_per_second),
      interval_(std::max<std::int64_t>(60 * units_per_second / per_minute_, 1)),
      window_(interval_ * per_minute_) {}

RateDecision Gcra::decide(std::int64_t offset, std::int64_t nth) const noexcept {
  // How many of the run fit, up to this one.
  const std::int64_t fit = std::min(nth + 1, offset >= window_ ? 0 : (window_ - offset) / interval_);
  if (nth < fit) {
    const std::int64_t ahead = offset + (nth + 1) * interval_;  // the bucket after this one
    return {true, per_minute_, (window_ - ahead) / interval_, ceil_div(ahead, units_per_second_), 0};
  }
  // Refused, like every one after the last that fit: the bucket stays where they left it.
  const std::int64_t start = offset + fit * interval_;
  return {false, per_minute_, 0, ceil_div(start, units_per_second_),
          std::max<std::int64_t>(1, ceil_div(start + interval_ - window_, units_per_second_))};
}

RateDecision RateBucket::acquire(std::int64_t now, std::int64_t per_minute) noexcept {
  const Gcra gcra(per_minute, kSecond);
  std::int64_t tat = tat_.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t offset = std::max<std::int64_t>(tat - now, 0);
    const RateDecision decision = gcra.decide(offset, 0);
    // Refused: the bucket stays as it is.
    if (!decision.allowed) return decision;
    if (tat_.compare_exchange_weak(tat, now + offset + gcra.interval(), std::memory_order_relaxed)) return decision;
  }
}

std::size_t RateLimiter::Hash::operator()(const Uuid& u) const noexcept {
  std::uint64_t h;
  std::memcpy(&h, u.bytes.data() + 8, sizeof h);  // random bits of a v4 uuid
  return static_cast<std::size_t>(h);
}

std::shared_ptr<RateBucket> RateLimiter::bucket(const Uuid& store) {
  std::lock_guard lock(mutex_);
  auto& slot = buckets_[store];
  if (!slot) slot = std::make_shared<RateBucket>();
  return slot;
}

std::size_t RateLimiter::evict_idle(std::int64_t now) {
  std::lock_guard lock(mutex_);
  std::erase_if(buckets_, [now](const auto& entry) { return entry.second.use_count() == 1 && entry.second->idle(now); });
  return buckets_.size();
}

}  // namespace storeapi::auth
