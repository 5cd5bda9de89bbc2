#include "auth/shared_rate_limit.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

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
return {1, math.floor((window - (next - now)) / interval), math.ceil((next - now) / 1000000), 0}
)lua";

std::optional<RateDecision> decision_from_reply(const redisReply& reply, std::int64_t per_minute) {
  if (reply.type != REDIS_REPLY_ARRAY || reply.elements != 4) return std::nullopt;
  for (std::size_t i = 0; i < 4; ++i)
    if (reply.element[i]->type != REDIS_REPLY_INTEGER) return std::nullopt;
  const bool allowed = reply.element[0]->integer == 1;
  return RateDecision{allowed, std::max<std::int64_t>(per_minute, 1), reply.element[1]->integer,
                      reply.element[2]->integer, reply.element[3]->integer};
}

runtime::task<std::optional<RateDecision>> SharedRateLimit::acquire(std::string_view store_id, std::int64_t per_minute) {
  // Built in the frame, not on the heap: this runs once per request.
  constexpr std::string_view kPrefix = "storeapi:rate:";
  std::array<char, kPrefix.size() + 36> key;
  const auto key_end = std::copy(store_id.begin(), store_id.begin() + std::min<std::size_t>(store_id.size(), 36),
                                 std::copy(kPrefix.begin(), kPrefix.end(), key.begin()));
  char limit[24];
  const auto limit_end = std::to_chars(limit, limit + sizeof limit, per_minute).ptr;
  // std::array, not braced lists: g++ 12 miscompiles an initializer_list's array held
  // across a co_await ("array used as initializer").
  const std::array<std::string_view, 1> keys{std::string_view(key.data(), key_end - key.begin())},
      args{std::string_view(limit, limit_end - limit)};
  redis::Reply reply = co_await redis_.eval(keys, args);
  if (!reply) co_return std::nullopt;
  co_return decision_from_reply(*reply, per_minute);
}

}  // namespace storeapi::auth
