#include "auth/rate_limiter.hpp"

#include <algorithm>
#include <cstring>

namespace storeapi::auth {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kMinute = 60 * kSecond;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

RateDecision RateBucket::acquire(std::int64_t now, std::int64_t per_minute) noexcept {
  per_minute = std::max<std::int64_t>(per_minute, 1);
  const std::int64_t interval = kMinute / per_minute;  // one request's share of a minute
  const std::int64_t window = interval * per_minute;   // the whole burst
  std::int64_t tat = tat_.load(std::memory_order_relaxed);
  for (;;) {
    std::int64_t start = std::max(tat, now);
    std::int64_t next = start + interval;
    if (next - now > window) {
      // Refused: the bucket stays as it is.
      std::int64_t wait = next - now - window;
      return {false, per_minute, 0, ceil_div(start - now, kSecond), std::max<std::int64_t>(1, ceil_div(wait, kSecond))};
    }
    if (tat_.compare_exchange_weak(tat, next, std::memory_order_relaxed)) {
      std::int64_t remaining = (window - (next - now)) / interval;
      return {true, per_minute, remaining, ceil_div(next - now, kSecond), 0};
    }
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
