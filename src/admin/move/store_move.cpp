#include "admin/move/store_move.hpp"

#include "admin/base/confirmations.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/base/progress.hpp"
#include "admin/move/checks.hpp"
#include "admin/move/fences.hpp"
#include "admin/move/phases.hpp"
#include "admin/move/replication.hpp"
#include "admin/move/tables.hpp"
#include "admin/stores/stores.hpp"
#include "db/pod_addresses.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

namespace storeapi::admin {
namespace {

using std::chrono::milliseconds;
using Clock = MoveClock;

// Bounds of the waits: catching up after the copy (the changes made during it) and the
// target's applying the fence's position (inside the write pause: when it takes this
// long, something is wrong and the move is undone).
constexpr milliseconds kCatchUpLimit{60'000};
constexpr milliseconds kFenceLimit{10'000};

// A move as the directory records it (store_moves).
struct MoveRecord {
  std::string source;
  std::string target;
  MovePhase phase = MovePhase::copying;
  std::int64_t epoch = 0;
  bool target_tombstone = false;  // the target held the store's tombstone of a past move
};

// The move an earlier attempt left unfinished.
std::optional<MoveRecord> unfinished_move(pqxx::connection& directory, const std::string& store_id) {
  pqxx::nontransaction work(directory);
  auto r = work.exec_params(
      "select source, target, phase, epoch, target_tombstone from store_moves where store_id = $1 and phase <> $2",
      store_id, stored_phase(MovePhase::done));
  if (r.empty()) return std::nullopt;
  return MoveRecord{r[0]["source"].c_str(), r[0]["target"].c_str(), recorded_phase(r[0]["phase"].c_str()),
                    r[0]["epoch"].as<std::int64_t>(), r[0]["target_tombstone"].as<bool>()};
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

// One run of the command: what its phases share.
struct Move {
  pqxx::connection& directory;
  const Mover& mover;
  std::string store_id;
  std::string to;  // the pod asked for
  PhaseClock clock{"store move"};
  Placement where{};                    // the store's placement as the run found it
  MoveRecord record{};                  // this move
  std::optional<MovePhase> recorded{};  // what the directory holds of it (nothing before the prepare)
  std::optional<MoverConnection> source{};
  std::optional<MoverConnection> target{};
  std::vector<StoreTable> tables{};  // the store's tables the move copies
  std::optional<Clock::time_point> fenced{};
  Clock::time_point lifted{};
  Report report{};
};

// The tables the move copies to `target`: its own store tables, as the source has them
// (both run the same schema).
std::vector<StoreTable> moved_tables(pqxx::connection& source, const std::string& target) {
  pqxx::nontransaction work(source);
  return store_tables(work, target != db::kMainPod);
}

// The store and both pods can take the move.
void check(Move& m) {
  if (m.where.pod == m.to) throw CommandError("store " + m.store_id + " is already on pod '" + m.to + "'");
  m.source = open_as_mover(m.directory, m.mover, m.where.pod);
  m.target = open_as_mover(m.directory, m.mover, m.to);
  if (m.source->name == db::kMainPod && m.mover.directory_url.empty())
    throw UsageError(
        "moving a store off main needs the directory's URL (STOREAPI_DATABASE_URL or --database-url): "
        "the target pod's subscription connects to it");
  check_logical_wal(*m.source->conn, m.source->name);
  check_same_schema(*m.source->conn, *m.target->conn, m.target->name);
  cover_outbox(*m.source->conn, *m.target->conn, m.store_id, m.target->name);
  m.tables = moved_tables(*m.source->conn, m.target->name);
  m.record = MoveRecord{m.source->name, m.target->name, MovePhase::copying, m.where.epoch + 1};
}

// The target emptied of the store and holding its writes and dispatch; the move recorded
// as `copying`.
void prepare(Move& m) {
  {
    pqxx::work work(*m.target->conn);
    m.record.target_tombstone = !work.exec_params("select 1 from store_fences where store_id = $1", m.store_id).empty();
    // On main, the store's e-mails queued there while it lived elsewhere (key e-mails go to
    // the directory's outbox, docs/DECISIONS.md "Pods") stay: the copy brings none of them.
    delete_store_rows(work, m.target->name == db::kMainPod ? without(m.tables, "notifications") : m.tables, m.store_id);
    hold_on_target(work, m.store_id, m.record.epoch);
    work.commit();
  }
  {
    pqxx::work work(m.directory);
    work.exec_params(
        "insert into store_moves (store_id, source, target, phase, epoch, target_tombstone)"
        " values ($1, $2, $3, $4, $5, $6)"
        " on conflict (store_id) do update set source = excluded.source, target = excluded.target,"
        " phase = excluded.phase, epoch = excluded.epoch, target_tombstone = excluded.target_tombstone,"
        " started_at = api.now_ms(), updated_at = api.now_ms()",
        m.store_id, m.record.source, m.record.target, stored_phase(MovePhase::copying), m.record.epoch,
        m.record.target_tombstone);
    work.commit();
  }
  m.recorded = MovePhase::copying;
  m.report.from = m.record.source;
  m.report.to = m.record.target;
  m.report.epoch = m.record.epoch;
  // The target's fence row is its own (hold_on_target), not the source's.
  m.tables = without(m.tables, "store_fences");
  m.report.tables = static_cast<std::int64_t>(m.tables.size());
}

// Publication on the source, subscription on the target, every table's initial copy done.
void copy(Move& m) {
  std::map<std::string, std::size_t> rows_at_source;
  {
    pqxx::read_transaction work(*m.source->conn);
    rows_at_source = store_row_counts(work, m.tables, m.store_id);
  }
  publish_store(*m.source->conn, m.store_id, m.tables);
  subscribe(*m.target->conn, m.store_id, m.source->conninfo);
  Progress progress("store move");
  wait_copied(*m.target->conn, *m.source->conn, m.store_id, rows_at_source, progress);
}

void catch_up(Move& m) { wait_caught_up(*m.source->conn, m.store_id, kCatchUpLimit); }

void pause_source_dispatch(Move& m) {
  m.report.dispatch_claims_left = pause_dispatch(*m.source->conn, m.store_id, m.where.epoch, kDispatchLimit);
}

// The source holds the store's writes; the target applies its WAL up to the fence's
// commit: changes apply in commit order, so every write the source took before the fence
// is there.
void fence(Move& m) {
  fence_writes(*m.source->conn, m.store_id, m.record.epoch);
  m.fenced = Clock::now();
  wait_caught_up(*m.source->conn, m.store_id, kFenceLimit);
}

void detach(Move& m) {
  drop_subscription(*m.target->conn, m.store_id);
  drop_publication(*m.source->conn, m.store_id);
}

// The directory places the store on the target, epoch + 1, and records the move
// `flipped` in the same transaction; the servers are told and their confirmations awaited.
void flip(Move& m) {
  ServerConfirmations confirmations(m.directory);
  {
    pqxx::work work(m.directory);
    auto flipped = work.exec_params(
        "update stores set pod = $2, placement_epoch = $3 where id = $1 and pod = $4 and placement_epoch = $5",
        m.store_id, m.record.target, m.record.epoch, m.record.source, m.where.epoch);
    if (flipped.affected_rows() != 1) throw CommandError("the store's placement changed during the move");
    // This move's record, still copying: another mover that took it over (and undid or
    // finished it) leaves none, and this flip must not go on beside it.
    auto recorded = work.exec_params(
        "update store_moves set phase = $4, updated_at = api.now_ms()"
        " where store_id = $1 and phase = $5 and epoch = $2 and target = $3",
        m.store_id, m.record.epoch, m.record.target, stored_phase(MovePhase::flipped),
        stored_phase(MovePhase::copying));
    if (recorded.affected_rows() != 1) throw CommandError("the store's move record changed during the move");
    notify_store_changed(work, m.store_id);
    work.commit();
  }
  // The flip is committed: from here on the move only goes forward.
  m.recorded = MovePhase::flipped;
  m.report.confirmations_missing = static_cast<std::int64_t>(confirmations.wait());
}

// The target serves the store's writes and dispatch: the write pause ends.
void lift(Move& m) {
  lift_fence(*m.target->conn, m.store_id, m.record.epoch);
  m.lifted = Clock::now();
}

// The store's rows deleted from the source, but its fence row: the tombstone. The move
// recorded `done`.
void clean_up(Move& m) {
  {
    pqxx::work work(*m.source->conn);
    m.report.source_rows_deleted = delete_store_rows(
        work, without(store_tables(work, m.record.source != db::kMainPod), "store_fences"), m.store_id);
    keep_tombstone(work, m.store_id);
    work.commit();
  }
  pqxx::work work(m.directory);
  work.exec_params("update store_moves set phase = $2, updated_at = api.now_ms() where store_id = $1", m.store_id,
                   stored_phase(MovePhase::done));
  work.commit();
  m.recorded = MovePhase::done;
}

// A move stopped before its flip taken back: the store stays on the source, served as
// before the move; nothing of the attempt is left on either pod but the target's
// tombstone when a past move left one there (writes fenced, as it was). On connections of
// its own (the move's may be what failed); the source resumes first, as the target may be
// down.
void undo(Move& m) {
  MoverConnection source = open_as_mover(m.directory, m.mover, m.record.source);
  resume_store(*source.conn, m.store_id);
  MoverConnection target = open_as_mover(m.directory, m.mover, m.record.target);
  drop_subscription(*target.conn, m.store_id);
  drop_publication(*source.conn, m.store_id);
  {
    pqxx::work work(*target.conn);
    const std::vector<StoreTable> tables = moved_tables(*source.conn, m.record.target);
    delete_store_rows(work, m.record.target_tombstone ? without(tables, "store_fences") : tables, m.store_id);
    if (m.record.target_tombstone) keep_tombstone(work, m.store_id);
    work.commit();
  }
  pqxx::work work(m.directory);
  work.exec_params("delete from store_moves where store_id = $1", m.store_id);
  work.commit();
  m.recorded.reset();
}

// The move's phases, in order (store_move.hpp says what each does). `undo` is not among
// them: it runs when a move stops while the directory records it `copying`.
constexpr std::array<PhaseStep<Move>, 10> kMovePhases = {{
    {MovePhase::checks, check},
    {MovePhase::prepare, prepare},
    {MovePhase::copying, copy},
    {MovePhase::catch_up, catch_up},
    {MovePhase::dispatch_pause, pause_source_dispatch},
    {MovePhase::fence, fence},
    {MovePhase::detach, detach},
    {MovePhase::flipped, flip},
    {MovePhase::lift, lift},
    {MovePhase::cleanup, clean_up},
}};

// Runs the move's phases from `first` on. One that fails while the directory records the
// move `copying` and still places the store on the source undoes it (the flip's own
// failure included: its transaction did not commit); from the flip on, a failure leaves
// the move for the next run to finish.
void run_from(Move& m, MovePhase first) {
  try {
    run_phases<Move>(kMovePhases, m, m.clock, first);
  } catch (const std::exception&) {
    if (m.recorded == MovePhase::copying && placement(m.directory, m.store_id).pod == m.record.source) {
      try {
        m.clock.start(MovePhase::undo);
        undo(m);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "storeapi-admin: store move: undoing failed too (%s); run the move again\n", e.what());
      }
    }
    throw;
  }
}

// What an earlier attempt left, from the phase it recorded: before the flip, undone;
// from the flip on, finished (the replication it may have left dropped, as detach does,
// then the phases after `flipped`).
void take_up(Move& m, const MoveRecord& left) {
  m.record = left;
  m.recorded = left.phase;
  m.report.from = left.source;
  if (left.phase < MovePhase::flipped) {
    m.clock.start(MovePhase::undo);
    undo(m);
    m.report.taken_up = "undone";
    return;
  }
  m.source = open_as_mover(m.directory, m.mover, left.source);
  m.target = open_as_mover(m.directory, m.mover, left.target);
  m.clock.start(MovePhase::detach);
  detach(m);
  run_from(m, MovePhase::lift);
  m.report.taken_up = "finished";
}

void write_report(JsonWriter& json, const Move& m, Clock::time_point began) {
  const Report& r = m.report;
  json.begin_object()
      .field("object", "store_move")
      .field("store_id", m.store_id)
      .field("from", r.from)
      .field("to", r.to)
      .field("placement_epoch", r.epoch)
      .field("taken_up", r.taken_up)
      .field("tables", r.tables);
  m.clock.write(json);
  json.key("write_pause_seconds");
  if (r.write_pause)
    json.value(*r.write_pause);
  else
    json.null();
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
  Move m{directory, mover, canonical_store_id(store_id_given), target_pod};
  m.clock.start(MovePhase::checks);
  // The lock before the placement: read first, another move could finish in between and
  // this one would clear and fence the store's new, live pod as its target.
  lock_store_moves(directory, m.store_id, "store move");
  m.where = placement(directory, m.store_id);

  // What an earlier attempt left comes first. A store that is then where it was asked to
  // go is done: moving a store to the pod it is on is how an operator abandons a stopped
  // move.
  if (auto left = unfinished_move(directory, m.store_id)) {
    take_up(m, *left);
    m.where = placement(directory, m.store_id);
    if (m.where.pod == target_pod) {
      m.clock.finish();
      m.report.to = target_pod;
      m.report.epoch = m.where.epoch;
      write_report(json, m, began);
      return;
    }
  }
  run_from(m, MovePhase::checks);
  m.clock.finish();
  if (m.fenced) m.report.write_pause = seconds_between(*m.fenced, m.lifted);
  write_report(json, m, began);
}

}  // namespace storeapi::admin
