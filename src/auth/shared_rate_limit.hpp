#pragma once
// The per-store rate limit of a fleet: the same GCRA as RateBucket, kept in Redis so that
// every node of the fleet draws from one bucket per store. One script call per request
// (atomic in Redis, on Redis's clock so that node clocks do not matter), pipelined on the
// core's own connection (redis/client.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "auth/rate_limiter.hpp"
#include "redis/client.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

// The Lua script: KEYS[1] is the store's bucket, KEYS[2] (with standbys only) its last
// write position (api/read_router.hpp records it), ARGV[1] its per-minute limit; it
// returns {allowed, remaining, reset_s, retry_after_s[, write position]}: the position
// comes in the same round trip, so a read knows which standbys are fresh enough.
extern const char* const kGcraScript;

// Redis keys of a store: its GCRA state, and its last write position (db/lsn.hpp's
// fixed-width text, so that Lua compares positions as strings).
inline constexpr std::string_view kRateKeyPrefix = "storeapi:rate:";
inline constexpr std::string_view kWritePositionKeyPrefix = "storeapi:lsn:";
struct StoreKey {
  std::array<char, 64> bytes;
  std::size_t size;
  std::string_view view() const noexcept { return {bytes.data(), size}; }
};
// `prefix` then the store's id (36 characters), built without touching the heap.
StoreKey store_key(std::string_view prefix, std::string_view store_id) noexcept;

// What the fleet says about a request of a store.
struct FleetAdmission {
  RateDecision rate;
  // The store's last write position as recorded when this request was admitted; nullopt
  // when none is recorded.
  std::optional<std::uint64_t> last_write_lsn;
};

// The admission in a reply of kGcraScript, or nullopt when the reply is not one.
std::optional<FleetAdmission> admission_from_reply(const redisReply& reply, std::int64_t per_minute);

class SharedRateLimit {
 public:
  // `script`: kGcraScript's index among the client's scripts. `with_positions`: the
  // node reads from standbys, so each call also fetches the store's write position.
  SharedRateLimit(redis::Client& redis, std::size_t script, bool with_positions)
      : redis_(redis), script_(script), with_positions_(with_positions) {}

  // The store's decision and write position, or nullopt when Redis could not give one
  // (the caller falls back to the node's own bucket).
  runtime::task<std::optional<FleetAdmission>> acquire(std::string_view store_id, std::int64_t per_minute);

 private:
  redis::Client& redis_;
  std::size_t script_;
  bool with_positions_;
};

}  // namespace storeapi::auth
