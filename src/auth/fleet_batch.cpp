#include "auth/fleet_batch.hpp"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "db/lsn.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::auth {

// admit() is the bucket's side of auth::Gcra (auth/rate_limiter.hpp) for a run of
// `count` requests at one instant, in microseconds of Redis's TIME, read once per call:
// the first floor((window - offset) / interval) of them fit (at most `count`), and the
// bucket moves on by one interval for each. The decisions themselves are worked out by
// each waiter from the offset returned (decision_in_run), so Redis does one GET and at
// most one SET per store per call however many requests it carries. Lua numbers are
// doubles: microsecond timestamps (~2^51) stay exact, and the state is written with %d
// because tostring() would round it to 14 digits. A bucket expires once it is full again,
// so idle stores cost Redis nothing. Positions are fixed-width hex text, so comparing them
// as strings compares the positions.
const char* const kFleetBatchScript = R"lua(
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])

local function admit(bucket, position_key, limit, count)
  local per_minute = math.max(tonumber(limit), 1)
  local interval = math.max(math.floor(60000000 / per_minute), 1)
  local window = interval * per_minute
  local offset = math.max(tonumber(redis.call('GET', bucket) or 0) - now, 0)
  local allowed = math.min(tonumber(count), math.max(math.floor((window - offset) / interval), 0))
  if allowed > 0 then
    local ahead = offset + allowed * interval
    redis.call('SET', bucket, string.format('%d', now + ahead), 'PX', math.ceil(ahead / 1000) + 1)
  end
  -- No position wanted, or none recorded (GET gives false): nil, which ends the array
  -- after one element.
  local position = position_key and redis.call('GET', position_key) or nil
  return {offset, position}
end

local function record(position_key, position)
  local stored = redis.call('GET', position_key)
  if not stored or stored < position then redis.call('SET', position_key, position) end
  return 1
end

-- Records first: an admission sees every position recorded in the same call.
local replies = {}
local function run(records)
  local k = 1
  for a = 1, #ARGV, 3 do
    local kind, value, count = ARGV[a], ARGV[a + 1], ARGV[a + 2]
    if kind == 'R' and records then
      replies[(a + 2) / 3] = record(KEYS[k], value)
    elseif kind ~= 'R' and not records then
      replies[(a + 2) / 3] = admit(KEYS[k], kind == 'P' and KEYS[k + 1] or nil, value, count)
    end
    k = k + (kind == 'P' and 2 or 1)
  end
end
run(true)
run(false)
return replies
)lua";

void append_key(std::string& out, FleetKey key, std::string_view store_id, std::int64_t epoch) {
  out += "storeapi:{";
  out += store_id;
  out += key == FleetKey::rate ? "}:rate" : "}:lsn";
  if (key == FleetKey::write_position && epoch != kFirstPlacementEpoch) {
    char text[24];
    out += ':';
    out.append(text, std::to_chars(text, text + sizeof text, epoch).ptr);
  }
}

RateDecision decision_in_run(std::int64_t offset_us, std::int64_t per_minute, std::int64_t nth) noexcept {
  return Gcra(per_minute, 1'000'000).decide(offset_us, nth);
}

std::optional<RunStart> run_start_from_reply(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ARRAY || reply.elements < 1 || reply.elements > 2) return std::nullopt;
  if (reply.element[0]->type != REDIS_REPLY_INTEGER || reply.element[0]->integer < 0) return std::nullopt;
  RunStart start{reply.element[0]->integer, std::nullopt};
  if (reply.elements == 2) {
    const redisReply& position = *reply.element[1];
    if (position.type != REDIS_REPLY_STRING) return std::nullopt;
    start.last_write_lsn = db::parse_fixed_width_lsn({position.str, position.len});
    if (!start.last_write_lsn) return std::nullopt;
  }
  return start;
}

// One waiting request, in its coroutine frame. A frame destroyed while it waits (its task
// destroyed) takes itself out of the batch, so the reply never resumes a frame that is
// gone (its request still counts in its entry, as it would have had it finished).
struct FleetBatch::Call {
  Batch* batch = nullptr;  // while queued or sent
  std::size_t index = 0;   // in batch->calls
  std::size_t entry = 0;   // in batch->entries
  std::int64_t nth = 0;    // its place among its entry's requests
  std::coroutine_handle<> waiting;
  std::optional<FleetAdmission> admission;
  RecordStatus recorded = RecordStatus::unanswered;

  Call() = default;
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call();
};

// The entries of one iteration, in queue order, and their waiters. Requests of one store
// (and limit) share an entry. Store ids are kept back to back in `stores`, and the
// command's keys and arguments are written into `wire` when the call leaves, so that
// queuing allocates nothing once the buffers have grown.
struct FleetBatch::Batch {
  struct Entry {
    char kind;  // 'L', 'P' or 'R' (kFleetBatchScript)
    std::size_t store_offset, store_size;
    std::int64_t epoch;  // the store's placement epoch: P, R
    std::int64_t per_minute = 0;  // L, P
    std::int64_t count = 0;       // L, P
    std::uint64_t position = 0;   // R
  };
  std::string stores;
  std::vector<Entry> entries;
  std::vector<Call*> calls;  // null: its waiter went away
  std::string wire;

  std::string_view store(const Entry& e) const { return {stores.data() + e.store_offset, e.store_size}; }

  // The entry of `store` (under `epoch`) with `per_minute` of `kind`, made if the batch
  // has none yet.
  std::size_t entry(char kind, std::string_view store_id, std::int64_t epoch, std::int64_t per_minute) {
    for (std::size_t i = entries.size(); i-- > 0;)
      if (entries[i].kind == kind && entries[i].per_minute == per_minute && entries[i].epoch == epoch &&
          store(entries[i]) == store_id)
        return i;
    entries.push_back({kind, stores.size(), store_id.size(), epoch, per_minute});
    stores += store_id;
    return entries.size() - 1;
  }
  void add(Call& call) {
    call.batch = this;
    call.index = calls.size();
    calls.push_back(&call);
  }

  // The command's KEYS and ARGV, written into `wire`.
  void write(std::vector<std::string_view>& keys, std::vector<std::string_view>& args) {
    struct Piece {
      std::size_t offset, size;
    };
    std::vector<Piece> key_pieces, arg_pieces;
    auto put = [&](std::vector<Piece>& pieces, auto&& append) {
      const std::size_t offset = wire.size();
      append();
      pieces.push_back({offset, wire.size() - offset});
    };
    auto number = [&](std::int64_t n) {
      char text[24];
      wire.append(text, std::to_chars(text, text + sizeof text, n).ptr);
    };
    wire.clear();
    for (const Entry& e : entries) {
      put(arg_pieces, [&] { wire += e.kind; });
      if (e.kind == 'R') {
        put(arg_pieces, [&] { wire += db::fixed_width_lsn(e.position); });
        put(arg_pieces, [&] { wire += '1'; });
      } else {
        put(arg_pieces, [&] { number(e.per_minute); });
        put(arg_pieces, [&] { number(e.count); });
        put(key_pieces, [&] { append_key(wire, FleetKey::rate, store(e)); });
      }
      if (e.kind != 'L') put(key_pieces, [&] { append_key(wire, FleetKey::write_position, store(e), e.epoch); });
    }
    // Views only now: `wire` no longer grows.
    for (const Piece& p : key_pieces) keys.emplace_back(wire.data() + p.offset, p.size);
    for (const Piece& p : arg_pieces) args.emplace_back(wire.data() + p.offset, p.size);
  }
  void clear() {
    stores.clear();
    entries.clear();
    calls.clear();
    wire.clear();
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

runtime::task<std::optional<FleetAdmission>> FleetBatch::admit(std::string_view store_id, std::int64_t epoch,
                                                               std::int64_t per_minute) {
  Call call;
  Batch& batch = filling(call);
  // Without positions the epoch plays no part: one entry per store and limit.
  call.entry = batch.entry(with_positions_ ? 'P' : 'L', store_id, with_positions_ ? epoch : 0, per_minute);
  call.nth = batch.entries[call.entry].count++;
  co_await Suspend{call};
  co_return std::move(call.admission);
}

runtime::task<RecordStatus> FleetBatch::record_position(std::string_view store_id, std::int64_t epoch, std::uint64_t lsn) {
  Call call;
  Batch& batch = filling(call);
  call.entry = batch.entries.size();
  batch.entries.push_back({'R', batch.stores.size(), store_id.size(), epoch});
  batch.entries.back().position = lsn;
  batch.stores += store_id;
  co_await Suspend{call};
  co_return call.recorded;
}

runtime::task<void> FleetBatch::send(std::unique_ptr<Batch> batch) {
  in_flight_ = true;
  // The views point into batch->wire, which lives in this frame until the reply is read
  // (a NOSCRIPT retry formats the command again).
  std::vector<std::string_view> keys, args;
  batch->write(keys, args);
  const redis::Reply reply = co_await redis_.eval(script_, keys, args);
  in_flight_ = false;
  // What queued meanwhile leaves at the end of this iteration, with what the waiters
  // resumed below queue.
  if (filling_) reactor_->at_iteration_end(hook_);
  // Null (Redis down, connection lost, reply overdue) or not one element per entry: no
  // entry has an answer, every waiter falls back.
  const bool answered = reply && reply->type == REDIS_REPLY_ARRAY && reply->elements == batch->entries.size();
  for (std::size_t i = 0; i < batch->calls.size(); ++i) {
    Call* call = std::exchange(batch->calls[i], nullptr);
    if (!call) continue;
    call->batch = nullptr;
    if (answered) {
      const redisReply& element = *reply->element[call->entry];
      const Batch::Entry& entry = batch->entries[call->entry];
      if (entry.kind == 'R') {
        call->recorded = element.type == REDIS_REPLY_INTEGER ? RecordStatus::recorded : RecordStatus::unanswered;
      } else if (const std::optional<RunStart> start = run_start_from_reply(element)) {
        call->admission = FleetAdmission{decision_in_run(start->offset_us, entry.per_minute, call->nth),
                                         start->last_write_lsn};
      }
    }
    call->waiting.resume();
  }
  batch->clear();
  if (!spare_) spare_ = std::move(batch);
}

}  // namespace storeapi::auth
