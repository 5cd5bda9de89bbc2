#include "api/routing/read_router.hpp"

#include "db/lsn.hpp"
#include "metrics/registry.hpp"

namespace storeapi::api {

namespace {

metrics::Counter& reads_on(const char* target) {
  return metrics::Registry::process()
      .counter("storeapi_db_reads_total",
               "GET units by where they ran: a hot standby that had replayed the store's last write, or the primary.",
               {"target"})
      .with({target});
}

// A read a standby could not answer (gone, cancelled by a recovery conflict, ...) is
// answered by the primary instead: reads change nothing, so running one again is safe.
bool answered(db::Outcome outcome, db::Unit& unit) {
  if (outcome != db::Outcome::done) return false;
  for (std::size_t i = 0; i < unit.size(); ++i)
    if (!unit.result(i).ok()) return false;
  return true;
}

}  // namespace

ReadRouter::ReadRouter(Pods& pods, auth::FleetBatch* fleet, db::WritePositions* local)
    : pods_(pods),
      fleet_(fleet),
      local_(local),
      on_standby_(reads_on("standby")),
      on_primary_(reads_on("primary")) {}

std::optional<std::uint64_t> ReadRouter::known_position(const auth::Caller& caller) const {
  return fleet_ ? caller.last_write_lsn : local_->find(caller.store(), caller.placement_epoch);
}

void ReadRouter::ask_position(db::Unit& unit) { unit.sync().add(db::kWalInsertPosition, {}); }

runtime::task<std::optional<std::uint64_t>> ReadRouter::record(db::Unit& unit, std::string_view store,
                                                               std::int64_t epoch) {
  const db::Result& r = unit.result(unit.size() - 1);
  const auto row = r.row<db::WalInsertPosition>(0);
  const std::optional<std::uint64_t> position =
      r.ok() && r.rows() == 1 && !row.is_null(db::WalInsertPosition::Index::inserted) ? db::parse_lsn(row.inserted())
                                                                                    : std::nullopt;
  if (!position) co_return std::nullopt;
  if (!fleet_) {
    local_->raise(store, epoch, *position);
    co_return std::nullopt;
  }
  if (co_await fleet_->record_position(store, epoch, *position) == auth::RecordStatus::recorded) co_return std::nullopt;
  co_return position;
}

runtime::task<void> ReadRouter::record_write(db::Unit& unit, Pod& pod, std::string_view store, std::int64_t epoch) {
  const std::optional<std::uint64_t> unrecorded = co_await record(unit, store, epoch);
  // Redis did not take it (unreachable from this node, perhaps not from the others, whose
  // reads would then trust an older position): the answer waits until every standby has
  // replayed the write, so that no standby can show what it overwrote. docs/DECISIONS.md
  // "Reads from standbys".
  if (unrecorded) co_await pod.standbys()->wait_replayed_everywhere(*unrecorded, kUnrecordedWriteWait);
}

runtime::task<db::Outcome> ReadRouter::read(db::Unit& unit, const auth::Caller& caller, Pod& pod) {
  if (!pod.standbys()) co_return co_await pod.primary().run(unit);
  const std::optional<std::uint64_t> known = known_position(caller);
  if (known) {
    if (db::Pool* standby = pod.standbys()->pick(*known)) {
      const db::Outcome outcome = co_await standby->run(unit);
      if (answered(outcome, unit)) {
        on_standby_.inc();
        co_return outcome;
      }
      unit.reset_results();
    }
  }
  // Unknown: the primary's position after this read is one every earlier write of the
  // store is at or before (Redis down: nowhere to record it, so not asked).
  const bool recording = !known && (!fleet_ || fleet_->up()) && unit.size() < db::Unit::kMaxStatements;
  if (recording) ask_position(unit);
  const db::Outcome outcome = co_await pod.primary().run(unit);
  on_primary_.inc();
  if (recording && outcome == db::Outcome::done) co_await record(unit, caller.store(), caller.placement_epoch);
  co_return outcome;
}

runtime::task<db::Outcome> ReadRouter::write(db::Unit& unit, const auth::Caller& caller, Pod& pod) {
  if (!pod.standbys()) co_return co_await pod.primary().run(unit);
  ask_position(unit);
  const db::Outcome outcome = co_await pod.primary().run(unit);
  if (outcome == db::Outcome::done) co_await record_write(unit, pod, caller.store(), caller.placement_epoch);
  co_return outcome;
}

runtime::task<void> ReadRouter::written_elsewhere(std::string store) {
  db::Unit placement;
  placement.add(kStorePlacement, {std::string_view(store)});
  if (co_await pods_.directory().run(placement) != db::Outcome::done || placement.result(0).rows() != 1) co_return;
  const auto row = placement.result(0).row<StorePlacement>(0);
  const std::int64_t epoch = row.placement_epoch();
  // Without standbys there is no position to keep, and the confirmation the admin tool
  // waits for need not wait for a pod's first connections.
  if (!pods_.may_have_standbys(row.pod())) co_return;
  const PodLookup found = co_await pods_.find(std::string(row.pod()));
  if (!found.ok() || !found.pod().standbys()) co_return;
  Pod& pod = found.pod();
  db::Unit unit;
  unit.add(db::kWalInsertPosition, {});
  if (co_await pod.primary().run(unit) == db::Outcome::done) co_await record_write(unit, pod, store, epoch);
}

}  // namespace storeapi::api
