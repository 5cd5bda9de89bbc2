#include "admin/move/store_move.hpp"

#include "admin/base/confirmations.hpp"
#include "admin/base/errors.hpp"
#include "admin/move/checks.hpp"
#include "admin/move/fences.hpp"
#include "admin/move/phases.hpp"
#include "admin/move/replication.hpp"
#include "admin/move/tables.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/base/progress.hpp"
#include "admin/stores/stores.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace storeapi::admin {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr const char* kMain = "main";
// Bounds of the waits: catching up after the copy (the changes made during it), the
// dispatchers' claims in flight, and the target's applying the fence's position (inside
// the write pause: when it takes this long, something is wrong and the move is undone).
constexpr milliseconds kCatchUpLimit{60'000};
constexpr milliseconds kDispatchLimit{5'000};
constexpr milliseconds kFenceLimit{10'000};

// The move an earlier attempt left unfinished.
struct MoveRecord {
  std::string source;
  std::string target;
  std::string phase;
  std::int64_t epoch = 0;
  bool target_tombstone = false;  // the target held the store's tombstone of a past move
};

std::optional<MoveRecord> unfinished_move(pqxx::connection& directory, const std::string& store_id) {
  pqxx::nontransaction work(directory);
  auto r = work.exec_params(
      "select source, target, phase, epoch, target_tombstone from store_moves where store_id = $1 and phase <> 'done'",
      store_id);
  if (r.empty()) return std::nullopt;
  return MoveRecord{r[0]["source"].c_str(), r[0]["target"].c_str(), r[0]["phase"].c_str(),
                    r[0]["epoch"].as<std::int64_t>(), r[0]["target_tombstone"].as<bool>()};
}

void record_phase(pqxx::connection& directory, const std::string& store_id, const char* phase) {
  pqxx::work work(directory);
  work.exec_params("update store_moves set phase = $2, updated_at = api.now_ms() where store_id = $1", store_id, phase);
  work.commit();
}

// The tables the move copies to `target`: its own store tables, as the source has them
// (both run the same schema).
std::vector<StoreTable> moved_tables(pqxx::connection& source, const std::string& target) {
  pqxx::nontransaction work(source);
  return store_tables(work, target != kMain);
}

// Before the flip: the store stays on the source, served as before the move; nothing of
// the attempt is left on either pod but the target's tombstone when a past move left one
// there (writes fenced, as it was). The source resumes first, as the target may be down.
void undo(pqxx::connection& directory, const Mover& mover, const std::string& store_id, const MoveRecord& move) {
  Pod source = open_pod(directory, mover, move.source);
  resume_store(*source.conn, store_id);
  Pod target = open_pod(directory, mover, move.target);
  drop_subscription(*target.conn, store_id);
  drop_publication(*source.conn, store_id);
  {
    pqxx::work work(*target.conn);
    const std::vector<StoreTable> tables = moved_tables(*source.conn, move.target);
    delete_store_rows(work, move.target_tombstone ? without(tables, "store_fences") : tables, store_id);
    if (move.target_tombstone) keep_tombstone(work, store_id);
    work.commit();
  }
  pqxx::work work(directory);
  work.exec_params("delete from store_moves where store_id = $1", store_id);
  work.commit();
}

// After the flip: the target serves the store (the write pause ends with the lift's
// commit); the source keeps only its fence row, as the tombstone.
struct Finished {
  Clock::time_point lifted;
  long source_rows_deleted = 0;
};

Finished finish(pqxx::connection& directory, const std::string& store_id, const MoveRecord& move, Pod& source,
                Pod& target, PhaseClock& clock) {
  Finished done;
  clock.start("lift");
  lift_fence(*target.conn, store_id, move.epoch);
  done.lifted = Clock::now();
  clock.start("cleanup");
  {
    pqxx::work work(*source.conn);
    // The fence row stays: the tombstone.
    done.source_rows_deleted =
        delete_store_rows(work, without(store_tables(work, move.source != kMain), "store_fences"), store_id);
    keep_tombstone(work, store_id);
    work.commit();
  }
  record_phase(directory, store_id, "done");
  return done;
}

// What the command prints.
struct Report {
  std::string from;
  std::string to;
  std::int64_t epoch = 0;
  std::optional<std::string> taken_up;  // what an earlier attempt left: "undone", "finished"
  std::optional<std::int64_t> tables;   // null when this run moved nothing itself
  std::optional<double> write_pause;
  std::int64_t dispatch_claims_left = 0;
  std::int64_t confirmations_missing = 0;
  std::int64_t source_rows_deleted = 0;
};

void write_report(JsonWriter& json, const std::string& store_id, const Report& r, const PhaseClock& clock,
                  Clock::time_point began) {
  json.begin_object()
      .field("object", "store_move")
      .field("store_id", store_id)
      .field("from", r.from)
      .field("to", r.to)
      .field("placement_epoch", r.epoch)
      .field("taken_up", r.taken_up)
      .field("tables", r.tables);
  clock.write(json);
  json.key("write_pause_seconds");
  if (r.write_pause) json.value(*r.write_pause);
  else json.null();
  json.field("dispatch_claims_left", r.dispatch_claims_left)
      .field("confirmations_missing", r.confirmations_missing)
      .field("source_rows_deleted", r.source_rows_deleted)
      .field("total_seconds", seconds_between(began, Clock::now()))
      .end_object();
}

}  // namespace

void move_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id_given,
                const std::string& target_pod) {
  const auto began = Clock::now();
  const std::string store_id = canonical_store_id(store_id_given);
  PhaseClock clock("store move");
  clock.start("checks");
  Placement where = placement(directory, store_id);
  lock_store_moves(directory, store_id, "store move");

  // What an earlier attempt left: undone before the flip, finished after it. A store
  // that is then where it was asked to go is done: moving a store to the pod it is on is
  // how an operator abandons a stopped move.
  Report report;
  if (auto left = unfinished_move(directory, store_id)) {
    report.from = left->source;
    if (left->phase == "copying") {
      undo(directory, mover, store_id, *left);
      report.taken_up = "undone";
    } else {
      Pod source = open_pod(directory, mover, left->source);
      Pod target = open_pod(directory, mover, left->target);
      drop_subscription(*target.conn, store_id);
      drop_publication(*source.conn, store_id);
      report.source_rows_deleted = finish(directory, store_id, *left, source, target, clock).source_rows_deleted;
      report.taken_up = "finished";
    }
    where = placement(directory, store_id);
    if (where.pod == target_pod) {
      clock.finish();
      report.to = target_pod;
      report.epoch = where.epoch;
      write_report(json, store_id, report, clock, began);
      return;
    }
    clock.start("checks");
  }
  if (where.pod == target_pod) throw CommandError("store " + store_id + " is already on pod '" + target_pod + "'");

  Pod source = open_pod(directory, mover, where.pod);
  Pod target = open_pod(directory, mover, target_pod);
  if (source.name == kMain && mover.directory_url.empty())
    throw UsageError("moving a store off main needs the directory's URL (STOREAPI_DATABASE_URL or --database-url): "
                     "the target pod's subscription connects to it");
  check_logical_wal(*source.conn, source.name);
  check_same_schema(*source.conn, *target.conn, target.name);
  cover_outbox(*source.conn, *target.conn, store_id, target.name);
  const std::vector<StoreTable> tables = moved_tables(*source.conn, target.name);
  MoveRecord move{source.name, target.name, "copying", where.epoch + 1};

  clock.start("prepare");
  {
    pqxx::work work(*target.conn);
    move.target_tombstone =
        !work.exec_params("select 1 from store_fences where store_id = $1", store_id).empty();
    // On main, the store's e-mails queued there while it lived elsewhere (key e-mails go to
    // the directory's outbox, docs/DECISIONS.md "Pods") stay: the copy brings none of them.
    delete_store_rows(work, target.name == kMain ? without(tables, "notifications") : tables, store_id);
    hold_on_target(work, store_id, move.epoch);
    work.commit();
  }
  {
    pqxx::work work(directory);
    work.exec_params(
        "insert into store_moves (store_id, source, target, phase, epoch, target_tombstone)"
        " values ($1, $2, $3, 'copying', $4, $5)"
        " on conflict (store_id) do update set source = excluded.source, target = excluded.target,"
        " phase = excluded.phase, epoch = excluded.epoch, target_tombstone = excluded.target_tombstone,"
        " started_at = api.now_ms(), updated_at = api.now_ms()",
        store_id, move.source, move.target, move.epoch, move.target_tombstone);
    work.commit();
  }

  report.from = source.name;
  report.to = target.name;
  report.epoch = move.epoch;
  // The target's fence row is its own (hold_on_target), not the source's.
  const std::vector<StoreTable> published = without(tables, "store_fences");
  report.tables = static_cast<std::int64_t>(published.size());
  Clock::time_point fenced;
  try {
    clock.start("copy");
    std::map<std::string, std::size_t> rows_at_source;
    {
      pqxx::read_transaction work(*source.conn);
      rows_at_source = store_row_counts(work, published, store_id);
    }
    publish_store(*source.conn, store_id, published);
    subscribe(*target.conn, store_id, source.conninfo);
    Progress progress("store move");
    wait_copied(*target.conn, *source.conn, store_id, rows_at_source, progress);
    clock.start("catch_up");
    wait_caught_up(*source.conn, store_id, kCatchUpLimit);
    clock.start("dispatch_pause");
    report.dispatch_claims_left = pause_dispatch(*source.conn, store_id, where.epoch, kDispatchLimit);
    clock.start("fence");
    fence_writes(*source.conn, store_id, move.epoch);
    fenced = Clock::now();
    // The WAL position after the fence's commit applied on the target: changes apply in
    // commit order, so every write the source took before the fence is there.
    wait_caught_up(*source.conn, store_id, kFenceLimit);
    clock.start("detach");
    drop_subscription(*target.conn, store_id);
    drop_publication(*source.conn, store_id);
    clock.start("flip");
    ServerConfirmations confirmations(directory);
    {
      pqxx::work work(directory);
      auto flipped = work.exec_params(
          "update stores set pod = $2, placement_epoch = $3 where id = $1 and pod = $4 and placement_epoch = $5",
          store_id, target.name, move.epoch, source.name, where.epoch);
      if (flipped.affected_rows() != 1) throw CommandError("the store's placement changed during the move");
      // This move's record, still copying: another mover that took it over (and undid or
      // finished it) leaves none, and this flip must not go on beside it.
      auto recorded = work.exec_params(
          "update store_moves set phase = 'flipped', updated_at = api.now_ms()"
          " where store_id = $1 and phase = 'copying' and epoch = $2 and target = $3",
          store_id, move.epoch, move.target);
      if (recorded.affected_rows() != 1) throw CommandError("the store's move record changed during the move");
      notify_store_changed(work, store_id);
      work.commit();
    }
    // The flip is committed: from here on the move only goes forward.
    report.confirmations_missing = static_cast<std::int64_t>(confirmations.wait());
  } catch (const std::exception&) {
    if (placement(directory, store_id).pod == source.name) {
      try {
        undo(directory, mover, store_id, move);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "storeapi-admin: store move: undoing failed too (%s); run the move again\n", e.what());
      }
    }
    throw;
  }
  Finished done = finish(directory, store_id, move, source, target, clock);
  clock.finish();
  report.write_pause = seconds_between(fenced, done.lifted);
  report.source_rows_deleted = done.source_rows_deleted;
  write_report(json, store_id, report, clock, began);
}

}  // namespace storeapi::admin
