#pragma once
// What a core asks the fleet's Redis, one script call per loop iteration: every request
// that needs the shared rate limit (and, with standbys, its store's last write position)
// or records a write position during one reactor iteration queues its entry here and
// waits; when the iteration's completions have all been handled (runtime::IterationEnd)
// the core sends ONE EVALSHA carrying every entry, and the reply resumes each waiter with
// its own decision. Requests of one store in one call are one entry with a count: Redis
// reads and writes the bucket once and answers where it stood; each waiter works out its
// own decision from that and its place in the run — exactly what separate calls in queue
// order would give (the same GCRA as RateBucket, on Redis's clock). At most one call per
// core is in flight: entries queued meanwhile leave together once its reply is in.
// docs/DECISIONS.md "Rate limits in Redis".
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/rate_limiter.hpp"
#include "redis/client.hpp"
#include "runtime/reactor.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

// The Lua script that takes a batch. ARGV holds (kind, value, count) triples, one per
// entry, and KEYS each entry's keys in the same order:
//   'L' limit       value: the per-minute limit, count: how many requests of the store
//                   (with that limit) the call carries; KEYS: the store's bucket
//   'P' limit+read  the same, plus KEYS: the store's write position, returned with it
//   'R' record      value: a position (db::fixed_width_lsn), count 1; KEYS: the store's
//                   write position, which keeps the larger of the stored and this one
// It returns one element per entry: {offset_us[, position]} for L and P — how far ahead
// of Redis's clock the bucket was before the entry's requests, which is all it takes to
// decide each of them (decision_in_run) — and 1 for R. Records are applied first, so an
// admission's position includes every record of the same call.
extern const char* const kFleetBatchScript;

// The keys of a store in Redis. Both carry the store id as their Redis Cluster hash tag
// (`storeapi:{<store>}:rate`, `storeapi:{<store>}:lsn`), so that one store's entries
// touch a single slot. The write position is a position in one pod's WAL, so it is kept
// per placement epoch (docs/DECISIONS.md, "Pods"): `storeapi:{<store>}:lsn:<epoch>`, the
// first epoch's without the suffix (the key nodes used before pods, which a rolling
// upgrade's older nodes still read and write).
enum class FleetKey { rate, write_position };
inline constexpr std::int64_t kFirstPlacementEpoch = 1;
void append_key(std::string& out, FleetKey key, std::string_view store_id,
                std::int64_t epoch = kFirstPlacementEpoch);

// Gcra::decide in microseconds, the script's unit, for the `nth` (from 0) of a run of
// requests of one store arriving at the same instant, its bucket `offset_us` ahead of that
// instant before the first of them: what RateBucket::acquire would answer the nth of as
// many calls in a row. Refused requests consume nothing.
RateDecision decision_in_run(std::int64_t offset_us, std::int64_t per_minute, std::int64_t nth) noexcept;

// What the fleet says about a request of a store.
struct FleetAdmission {
  RateDecision rate;
  // The store's last write position as recorded when this request was admitted; nullopt
  // when none is recorded.
  std::optional<std::uint64_t> last_write_lsn;
};

// An L or P element of kFleetBatchScript's reply: the bucket's offset and the store's
// position (nullopt inside when none is recorded); nullopt when the element is not one.
struct RunStart {
  std::int64_t offset_us;
  std::optional<std::uint64_t> last_write_lsn;
};
std::optional<RunStart> run_start_from_reply(const redisReply& reply);

// How a recorded write position fared: Redis took it, or did not answer (unreachable,
// the reply overdue or not the script's): the caller then makes the write safe without it.
enum class RecordStatus : std::uint8_t { recorded, unanswered };

class FleetBatch {
 public:
  // `script`: kFleetBatchScript's index among the client's scripts. `with_positions`:
  // the node reads from standbys, so each admission also fetches the store's position.
  FleetBatch(redis::Client& redis, std::size_t script, bool with_positions);
  ~FleetBatch();
  FleetBatch(const FleetBatch&) = delete;
  FleetBatch& operator=(const FleetBatch&) = delete;

  // The connection is up: a call now is likely to be answered.
  bool up() const noexcept { return redis_.up(); }

  // The store's decision and write position under placement `epoch`, or nullopt when
  // Redis could not give one (the caller falls back to the node's own bucket). On the
  // core's reactor.
  runtime::task<std::optional<FleetAdmission>> admit(std::string_view store_id, std::int64_t epoch,
                                                     std::int64_t per_minute);
  // Raises the store's recorded write position under placement `epoch` to `lsn`.
  runtime::task<RecordStatus> record_position(std::string_view store_id, std::int64_t epoch, std::uint64_t lsn);

 private:
  struct Call;
  struct Batch;
  struct Suspend;
  struct Hook : runtime::IterationEnd {
    FleetBatch* owner;
  };

  // The batch being filled this iteration (after making sure the iteration's end sends it).
  Batch& filling(Call& call);
  static void on_iteration_end(runtime::IterationEnd* hook);
  runtime::task<void> send(std::unique_ptr<Batch> batch);

  redis::Client& redis_;
  std::size_t script_;
  bool with_positions_;
  Hook hook_;
  runtime::Reactor* reactor_ = nullptr;  // where hook_ is queued, once it was
  std::unique_ptr<Batch> filling_;
  bool in_flight_ = false;  // a call was sent and its reply has not come yet
  std::unique_ptr<Batch> spare_;  // a sent batch, kept for its buffers
};

}  // namespace storeapi::auth
