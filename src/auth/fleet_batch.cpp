#include "auth/fleet_batch.hpp"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "db/lsn.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::auth {

// admit() is RateBucket::acquire (auth/rate_limiter.cpp) in Lua, in microseconds of
// Redis's TIME, read once: the batch is decided at one instant, entry after entry. Lua
// numbers are doubles: microsecond timestamps (~2^51) stay exact, and the state is written
// with %d because tostring() would round it to 14 digits. A bucket expires once it is
// full again, so idle stores cost Redis nothing. Positions are fixed-width hex text, so
// comparing them as strings compares the positions.
const char* const kFleetBatchScript = R"lua(
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])

-- Each key is read at most once and each bucket written once per call: the entries of
-- one store decide against the state the previous entry left (in `tats`), and only the
-- last state is stored. Redis's cost is in its calls, not in the arithmetic between them.
local tats, written, positions = {}, {}, {}

local function position_of(position_key)
  local position = positions[position_key]
  if position == nil then
    position = redis.call('GET', position_key)  -- false when none is recorded
    positions[position_key] = position
  end
  return position
end

local function admit(bucket, position_key, limit)
  local per_minute = math.max(tonumber(limit), 1)
  local interval = math.floor(60000000 / per_minute)
  local window = interval * per_minute
  local tat = tats[bucket]
  if tat == nil then tat = tonumber(redis.call('GET', bucket) or 0) end
  tats[bucket] = tat
  local start = math.max(tat, now)
  local next = start + interval
  if next - now > window then
    return {0, 0, math.ceil((start - now) / 1000000), math.max(1, math.ceil((next - now - window) / 1000000))}
  end
  tats[bucket] = next
  if not written[bucket] then
    written[bucket] = true
    written[#written + 1] = bucket
  end
  -- No position wanted, or none recorded: nil, which ends the array after four elements
  -- (a fifth, null element would be sent otherwise).
  local position = position_key and position_of(position_key) or nil
  return {1, math.floor((window - (next - now)) / interval), math.ceil((next - now) / 1000000), 0, position}
end

local function record(position_key, position)
  local stored = position_of(position_key)
  if not stored or stored < position then
    redis.call('SET', position_key, position)
    positions[position_key] = position
  end
  return 1
end

local replies, k = {}, 1
for a = 1, #ARGV, 2 do
  local kind, value = ARGV[a], ARGV[a + 1]
  if kind == 'R' then
    replies[#replies + 1] = record(KEYS[k], value)
    k = k + 1
  elseif kind == 'P' then
    replies[#replies + 1] = admit(KEYS[k], KEYS[k + 1], value)
    k = k + 2
  else
    replies[#replies + 1] = admit(KEYS[k], nil, value)
    k = k + 1
  end
end
-- The bucket expires once it is full again.
for _, bucket in ipairs(written) do
  local tat = tats[bucket]
  redis.call('SET', bucket, string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
end
return replies
)lua";

void append_key(std::string& out, FleetKey key, std::string_view store_id) {
  out += "storeapi:{";
  out += store_id;
  out += key == FleetKey::rate ? "}:rate" : "}:lsn";
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

// One waiting request's entry, in its coroutine frame. A frame destroyed while it waits
// (its task destroyed) takes its entry out of the batch, so the reply never resumes a
// frame that is gone.
struct FleetBatch::Call {
  bool records = false;
  std::int64_t per_minute = 0;  // an admission's limit, to read its reply element
  Batch* batch = nullptr;       // while queued or sent
  std::size_t index = 0;
  std::coroutine_handle<> waiting;
  std::optional<FleetAdmission> admission;
  bool recorded = false;

  Call() = default;
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call();
};

// The entries of one iteration: their keys and arguments (back to back in `text`, as
// offset and size, so that queuing allocates nothing once the buffers have grown) and
// their waiters, in order.
struct FleetBatch::Batch {
  struct Piece {
    std::size_t offset, size;
  };
  std::string text;
  std::vector<Piece> keys;
  std::vector<Piece> args;
  std::vector<Call*> calls;  // null: its waiter went away

  void add_key(FleetKey key, std::string_view store_id) {
    const std::size_t offset = text.size();
    append_key(text, key, store_id);
    keys.push_back({offset, text.size() - offset});
  }
  void add_arg(std::string_view arg) {
    args.push_back({text.size(), arg.size()});
    text += arg;
  }
  void add(Call& call) {
    call.batch = this;
    call.index = calls.size();
    calls.push_back(&call);
  }
  std::vector<std::string_view> views(const std::vector<Piece>& pieces) const {
    std::vector<std::string_view> out;
    out.reserve(pieces.size());
    for (const Piece& p : pieces) out.emplace_back(text.data() + p.offset, p.size);
    return out;
  }
  void clear() {
    text.clear();
    keys.clear();
    args.clear();
    calls.clear();
  }
};

FleetBatch::Call::~Call() {
  if (batch) batch->calls[index] = nullptr;
}

struct FleetBatch::Suspend {
  Call& call;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { call.waiting = h; }
  void await_resume() const noexcept {}
};

FleetBatch::FleetBatch(redis::Client& redis, std::size_t script, bool with_positions)
    : redis_(redis), script_(script), with_positions_(with_positions) {
  hook_.run = &FleetBatch::on_iteration_end;
  hook_.owner = this;
}

FleetBatch::~FleetBatch() {
  if (reactor_) reactor_->forget(hook_);
  // Waiters of a batch never sent (the core is going away) must not point at it.
  if (filling_)
    for (Call* call : filling_->calls)
      if (call) call->batch = nullptr;
}

FleetBatch::Batch& FleetBatch::filling(Call& call) {
  if (!filling_) filling_ = spare_ ? std::move(spare_) : std::make_unique<Batch>();
  reactor_ = &runtime::Reactor::current();
  reactor_->at_iteration_end(hook_);
  filling_->add(call);
  return *filling_;
}

void FleetBatch::on_iteration_end(runtime::IterationEnd* hook) {
  FleetBatch& self = *static_cast<Hook*>(hook)->owner;
  // One call in flight per core: while Redis works on one, the next fills up (the
  // reply's arrival queues the hook again), so that the busier the core, the fuller
  // each call and the fewer Redis wake-ups per request.
  if (self.filling_ && !self.in_flight_) runtime::spawn(self.send(std::move(self.filling_)));
}

runtime::task<std::optional<FleetAdmission>> FleetBatch::admit(std::string_view store_id, std::int64_t per_minute) {
  Call call;
  call.per_minute = per_minute;
  Batch& batch = filling(call);
  char limit[24];
  const auto limit_end = std::to_chars(limit, limit + sizeof limit, per_minute).ptr;
  batch.add_arg(with_positions_ ? "P" : "L");
  batch.add_arg(std::string_view(limit, static_cast<std::size_t>(limit_end - limit)));
  batch.add_key(FleetKey::rate, store_id);
  if (with_positions_) batch.add_key(FleetKey::write_position, store_id);
  co_await Suspend{call};
  co_return std::move(call.admission);
}

runtime::task<bool> FleetBatch::record_position(std::string_view store_id, std::uint64_t lsn) {
  Call call;
  call.records = true;
  Batch& batch = filling(call);
  batch.add_arg("R");
  batch.add_arg(db::fixed_width_lsn(lsn));
  batch.add_key(FleetKey::write_position, store_id);
  co_await Suspend{call};
  co_return call.recorded;
}

runtime::task<void> FleetBatch::send(std::unique_ptr<Batch> batch) {
  in_flight_ = true;
  // The views point into batch->text, which lives in this frame until the reply is read
  // (a NOSCRIPT retry formats the command again).
  const std::vector<std::string_view> keys = batch->views(batch->keys);
  const std::vector<std::string_view> args = batch->views(batch->args);
  const redis::Reply reply = co_await redis_.eval(script_, keys, args);
  in_flight_ = false;
  // What queued meanwhile leaves at the end of this iteration, with what the waiters
  // resumed below queue.
  if (filling_) reactor_->at_iteration_end(hook_);
  // Null (Redis down, connection lost, reply overdue) or not one element per entry: no
  // entry has an answer, every waiter falls back.
  const bool answered = reply && reply->type == REDIS_REPLY_ARRAY && reply->elements == batch->calls.size();
  for (std::size_t i = 0; i < batch->calls.size(); ++i) {
    Call* call = std::exchange(batch->calls[i], nullptr);
    if (!call) continue;
    call->batch = nullptr;
    if (answered) {
      const redisReply& element = *reply->element[i];
      if (call->records) call->recorded = element.type == REDIS_REPLY_INTEGER;
      else call->admission = admission_from_reply(element, call->per_minute);
    }
    call->waiting.resume();
  }
  batch->clear();
  if (!spare_) spare_ = std::move(batch);
}

}  // namespace storeapi::auth
