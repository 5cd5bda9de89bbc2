#pragma once
// Reads from hot standbys, never stale for the store that wrote (docs/DECISIONS.md
// "Reads from standbys"). Each write is followed, in the same pipeline, by
// pg_current_wal_insert_lsn() after its Sync: a position at or after its commit record,
// recorded as the store's last write position before the response leaves — in Redis in a
// fleet (auth::FleetBatch, which keeps the maximum), else in the process (db::WritePositions). A
// read of the store goes to a standby whose replay (db::Standbys) has reached that
// position, else to the primary; a store with no recorded position reads from the
// primary, which records the primary's position after that read, so the store's next
// reads can leave it. A read that fails on a standby runs again on the primary.
//
// With pods (docs/DECISIONS.md, "Pods") the primary and the standbys are those of the
// store's pod (api::Pods), and a position is kept with the store's placement epoch: one
// learned on the store's previous pod is never used on its new one.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "auth/authenticator.hpp"
#include "api/routing/pods.hpp"
#include "auth/fleet_batch.hpp"
#include "db/pool.hpp"
#include "db/standbys.hpp"
#include "db/unit.hpp"
#include "db/write_positions.hpp"
#include "metrics/series.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// How long a write whose position Redis did not take waits for every standby to replay
// it: the time after which a standby that has not answered its polls stops being used
// (db/standbys.cpp), so a wait longer than that would protect nothing more.
inline constexpr std::chrono::milliseconds kUnrecordedWriteWait{1'000};

class ReadRouter {
 public:
  // On a pod without standbys every unit runs on its primary, as on a node without
  // replicas. With them, positions are kept in Redis when `fleet` is given, else in `local`.
  ReadRouter(Pods& pods, auth::FleetBatch* fleet, db::WritePositions* local);

  // A GET of the caller's store, on `pod` (the store's).
  runtime::task<db::Outcome> read(db::Unit& unit, const auth::Caller& caller, Pod& pod);
  // A write of the caller's store, on `pod`: done means its position was recorded (or
  // could not be: Redis unreachable, see DECISIONS).
  runtime::task<db::Outcome> write(db::Unit& unit, const auth::Caller& caller, Pod& pod);
  // The store was written outside the API (the admin tool's NOTIFY, received after its
  // commit): records its pod's position now, at or past that write.
  runtime::task<void> written_elsewhere(std::string store);

 private:
  std::optional<std::uint64_t> known_position(const auth::Caller& caller) const;
  // Appends the insert-position query after the unit's last Sync.
  static void ask_position(db::Unit& unit);
  // Records the position the unit's last statement gave, when it gave one, under the
  // store's placement `epoch`. Returns it when Redis did not take it, else nullopt.
  runtime::task<std::optional<std::uint64_t>> record(db::Unit& unit, std::string_view store, std::int64_t epoch);
  // record() for a write on `pod`: one whose position Redis did not take waits (bounded)
  // until every standby of the pod has replayed it before the answer leaves.
  runtime::task<void> record_write(db::Unit& unit, Pod& pod, std::string_view store, std::int64_t epoch);

  Pods& pods_;
  auth::FleetBatch* fleet_;
  db::WritePositions* local_;
  metrics::Counter& on_standby_;  // storeapi_db_reads_total{target}
  metrics::Counter& on_primary_;
};

}  // namespace storeapi::api
