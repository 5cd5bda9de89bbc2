#pragma once
// The per-store rate limit of a fleet: the same GCRA as RateBucket, kept in Redis so that
// every node of the fleet draws from one bucket per store. One script call per request
// (atomic in Redis, on Redis's clock so that node clocks do not matter), pipelined on the
// core's own connection (redis/client.hpp).
#include <cstdint>
#include <optional>
#include <string_view>

#include "auth/rate_limiter.hpp"
#include "redis/client.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

// The Lua script: KEYS[1] is the store's bucket, ARGV[1] its per-minute limit; it returns
// {allowed, remaining, reset_s, retry_after_s}.
extern const char* const kGcraScript;

// The decision in a reply of kGcraScript, or nullopt when the reply is not one.
std::optional<RateDecision> decision_from_reply(const redisReply& reply, std::int64_t per_minute);

class SharedRateLimit {
 public:
  explicit SharedRateLimit(redis::Client& redis) : redis_(redis) {}

  // The store's decision, or nullopt when Redis could not give one (the caller falls
  // back to the node's own bucket).
  runtime::task<std::optional<RateDecision>> acquire(std::string_view store_id, std::int64_t per_minute);

 private:
  redis::Client& redis_;
};

}  // namespace storeapi::auth
