#include "auth/shared_rate_limit.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "db/lsn.hpp"

namespace storeapi::auth {

// RateBucket::acquire (auth/rate_limiter.cpp) in Lua, in microseconds of Redis's TIME.
// Lua numbers are doubles: microsecond timestamps (~2^51) stay exact, and the state is
// written with %d because tostring() would round it to 14 digits. The key expires once
// the bucket is full again, so idle stores cost Redis nothing.
const char* const kGcraScript = R"lua(
local per_minute = math.max(tonumber(ARGV[1]), 1)
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval = math.floor(60000000 / per_minute)
local window = interval * per_minute
local tat = tonumber(redis.call('GET', KEYS[1]) or 0)
local start = math.max(tat, now)
local next = start + interval
if next - now > window then
  return {0, 0, math.ceil((start - now) / 1000000), math.max(1, math.ceil((next - now - window) / 1000000))}
end
redis.call('SET', KEYS[1], string.format('%d', next), 'PX', math.ceil((next - now) / 1000) + 1)
-- No standbys (no KEYS[2]) or no position recorded (GET gives false, which Redis would
-- send as a fifth, null element): nil, which ends the array after four elements.
local position = KEYS[2] and redis.call('GET', KEYS[2]) or nil
return {1, math.floor((window - (next - now)) / interval), math.ceil((next - now) / 1000000), 0, position}
)lua";

StoreKey store_key(std::string_view prefix, std::string_view store_id) noexcept {
  StoreKey key{};
  const std::size_t id_size = std::min(store_id.size(), key.bytes.size() - prefix.size());
  const auto end = std::copy(store_id.begin(), store_id.begin() + static_cast<std::ptrdiff_t>(id_size),
                             std::copy(prefix.begin(), prefix.end(), key.bytes.begin()));
  key.size = static_cast<std::size_t>(end - key.bytes.begin());
  return key;
}

std::optional<FleetAdmission> admission_from_reply(const redisReply& reply, std::int64_t per_minute) {
  if (reply.type != REDIS_REPLY_ARRAY || (reply.elements != 4 && reply.elements != 5)) return std::nullopt;
  for (std::size_t i = 0; i < 4; ++i)
    if (reply.element[i]->type != REDIS_REPLY_INTEGER) return std::nullopt;
  const bool allowed = reply.element[0]->integer == 1;
  FleetAdmission admission{RateDecision{allowed, std::max<std::int64_t>(per_minute, 1), reply.element[1]->integer,
                                        reply.element[2]->integer, reply.element[3]->integer},
                           std::nullopt};
  if (reply.elements == 5 && reply.element[4]->type != REDIS_REPLY_NIL) {
    const redisReply& position = *reply.element[4];
    if (position.type != REDIS_REPLY_STRING) return std::nullopt;
    admission.last_write_lsn = db::parse_fixed_width_lsn({position.str, position.len});
    if (!admission.last_write_lsn) return std::nullopt;
  }
  return admission;
}

runtime::task<std::optional<FleetAdmission>> SharedRateLimit::acquire(std::string_view store_id,
                                                                     std::int64_t per_minute) {
  // Built in the frame, not on the heap: this runs once per request.
  const StoreKey bucket = store_key(kRateKeyPrefix, store_id);
  const StoreKey position = store_key(kWritePositionKeyPrefix, store_id);
  char limit[24];
  const auto limit_end = std::to_chars(limit, limit + sizeof limit, per_minute).ptr;
  // std::array, not braced lists: g++ 12 miscompiles an initializer_list's array held
  // across a co_await ("array used as initializer").
  const std::array<std::string_view, 2> keys{bucket.view(), position.view()};
  const std::array<std::string_view, 1> args{std::string_view(limit, limit_end - limit)};
  redis::Reply reply = co_await redis_.eval(script_, std::span(keys).first(with_positions_ ? 2 : 1), args);
  if (!reply) co_return std::nullopt;
  co_return admission_from_reply(*reply, per_minute);
}

}  // namespace storeapi::auth
