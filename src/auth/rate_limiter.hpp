#pragma once
// Per-store request rate limit, GCRA (a token bucket without a refill timer): a store may
// burst up to its per-minute limit, refilling evenly. One bucket per store is shared by
// every core and updated with a compare-and-swap, so the limit is exact across cores
// with no lock on the request path. Buckets are created on a key-cache miss (under a
// mutex: rare) and evicted once idle and unreferenced, so memory stays bounded.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/uuid.hpp"

namespace storeapi::auth {

struct RateDecision {
  bool allowed;
  std::int64_t limit;        // RateLimit-Limit
  std::int64_t remaining;    // RateLimit-Remaining
  std::int64_t reset_s;      // RateLimit-Reset: seconds until the bucket is full again
  std::int64_t retry_after_s;  // Retry-After when refused (>= 1)
};

// The GCRA arithmetic, shared by the node's own bucket (RateBucket, in nanoseconds) and
// the fleet's bucket in Redis (auth/fleet_batch.hpp, in microseconds of Redis's clock), so
// that both answer the same headers.
class Gcra {
 public:
  // `per_minute` requests a minute (at least 1), in a time unit of which
  // `units_per_second` make a second. One request's interval is at least one unit: a
  // limit above one request per unit refills at one per unit (its burst stays the limit).
  Gcra(std::int64_t per_minute, std::int64_t units_per_second) noexcept;

  // How far one allowed request moves the bucket.
  std::int64_t interval() const noexcept { return interval_; }

  // The decision for the `nth` (from 0) of requests arriving at one instant, the bucket
  // `offset` (>= 0) ahead of that instant before the first of them: what as many
  // acquisitions in a row would answer the nth. Refused requests consume nothing.
  RateDecision decide(std::int64_t offset, std::int64_t nth) const noexcept;

 private:
  std::int64_t per_minute_;
  std::int64_t units_per_second_;
  std::int64_t interval_;  // one request's share of a minute
  std::int64_t window_;    // the whole burst
};

class RateBucket {
 public:
  // `now_ns` is a monotonic clock reading. A refused request consumes nothing.
  RateDecision acquire(std::int64_t now_ns, std::int64_t per_minute) noexcept;
  // The bucket is full at `now_ns` (no request in the last window counts any more).
  bool idle(std::int64_t now_ns) const noexcept { return tat_.load(std::memory_order_relaxed) <= now_ns; }

 private:
  // Theoretical arrival time of the next request at the steady rate, ns.
  std::atomic<std::int64_t> tat_{0};
};

class RateLimiter {
 public:
  // The bucket of a store, created on first use. The caller keeps the shared_ptr as long
  // as it caches anything of that store.
  std::shared_ptr<RateBucket> bucket(const Uuid& store);
  // Drops buckets that are full and referenced by no cache. Returns how many remain.
  std::size_t evict_idle(std::int64_t now_ns);

 private:
  struct Hash {
    std::size_t operator()(const Uuid& u) const noexcept;
  };
  std::mutex mutex_;
  std::unordered_map<Uuid, std::shared_ptr<RateBucket>, Hash> buckets_;
};

}  // namespace storeapi::auth
