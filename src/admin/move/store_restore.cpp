#include "admin/move/store_restore.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/move/checks.hpp"
#include "admin/move/fences.hpp"
#include "admin/move/phases.hpp"
#include "admin/move/replication.hpp"
#include "admin/move/tables.hpp"
#include "db/pod_addresses.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace storeapi::admin {
namespace {

// A table of the store's data, its columns, and which of its rows of the store the
// restore replaces.
struct RestoredTable {
  std::string name;
  std::string columns;  // quoted, comma-separated: what COPY reads and writes
  std::string store_column;
  std::string also;  // a further condition on the store's rows, "" for all of them

  // The condition selecting the store's rows, given the store as SQL (a literal or $1).
  std::string rows(const std::string& store) const { return store_column + " = " + store + also; }
};

// The pod's tables of the store's data, but the fence row (the restore's own) and the
// directory's facts (store_tables without its copies); on main the owner's key e-mails,
// which the directory queues whatever pod holds the store, stay too. Stored generated
// columns are left to PostgreSQL.
std::vector<RestoredTable> restored_tables(pqxx::connection& pod, bool on_main) {
  pqxx::nontransaction work(pod);
  std::vector<RestoredTable> tables;
  for (const StoreTable& t : without(store_tables(work, false), "store_fences")) {
    std::string columns =
        work.exec_params1(
                "select string_agg(quote_ident(attname), ', ' order by attnum) as columns from pg_attribute"
                " where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = ''",
                t.name)["columns"]
            .c_str();
    const bool owner_mail_stays = on_main && t.name == "notifications";
    tables.push_back({t.name, columns, t.store_column, owner_mail_stays ? " and kind = 'customer'" : ""});
  }
  return tables;
}

// The copy's rows of `table` for the store, inserted in the pod's transaction in batches
// of JSON rows (row_to_json, then json_populate_recordset of the table's own row type:
// every column's value comes back as it was); how many. (pqxx 6's stream from one
// connection into another doubles each line's end, so COPY is not used here.)
std::int64_t copy_rows(pqxx::transaction_base& from, pqxx::transaction_base& to, const RestoredTable& table,
                       const std::string& store_id) {
  const std::string name = to.quote_name(table.name);
  from.exec("declare restored_rows no scroll cursor for select row_to_json(r)::text as row from (select " +
            table.columns + " from " + name + " where " + table.rows(literal(from.conn(), store_id)) + ") r");
  const std::string insert = "insert into " + name + " (" + table.columns + ") select " + table.columns +
                             " from json_populate_recordset(null::" + name + ", $1::json)";
  std::int64_t copied = 0;
  for (;;) {
    const pqxx::result batch = from.exec("fetch 2000 from restored_rows");
    if (batch.empty()) break;
    std::string rows = "[";
    for (const auto& row : batch) {
      if (rows.size() > 1) rows += ',';
      rows += row["row"].c_str();
    }
    rows += ']';
    to.exec_params(insert, rows);
    copied += static_cast<std::int64_t>(batch.size());
  }
  from.exec("close restored_rows");
  return copied;
}

void check_copy_has_store(pqxx::connection& copy, const std::string& store_id) {
  pqxx::nontransaction work(copy);
  if (work.exec_params("select 1 from stores where id = $1", store_id).empty())
    throw CommandError("the database of --from has no store " + store_id +
                       ": it must be the store's pod recovered to the time to restore");
}

// One run of the command: what its phases share.
struct Restore {
  pqxx::connection& directory;
  const Mover& mover;
  std::string store_id;
  std::string from_url;
  PhaseClock clock{"store restore"};
  Placement where{};
  std::optional<MoverConnection> pod{};
  std::unique_ptr<pqxx::connection> copy{};
  std::vector<RestoredTable> tables{};
  std::int64_t claims_left = 0;
  std::int64_t deleted = 0;
  std::int64_t copied = 0;
  MoveClock::time_point fenced{};
  MoveClock::time_point lifted{};
};

// The store, its pod, and a copy that can replace its rows there.
void check(Restore& r) {
  lock_store_moves(r.directory, r.store_id, "store restore");  // before the placement, as the move
  r.where = placement(r.directory, r.store_id);
  {
    pqxx::nontransaction work(r.directory);
    if (!work.exec_params("select 1 from store_moves where store_id = $1 and phase <> $2", r.store_id,
                          stored_phase(MovePhase::done))
             .empty())
      throw CommandError("store " + r.store_id + " has a move left unfinished: run `store move` again first");
  }
  r.pod = open_as_mover(r.directory, r.mover, r.where.pod);
  r.copy = connect(r.from_url);
  check_same_schema(*r.copy, *r.pod->conn, r.pod->name);
  check_copy_has_store(*r.copy, r.store_id);
  cover_outbox(*r.copy, *r.pod->conn, r.store_id, r.pod->name);
  r.tables = restored_tables(*r.pod->conn, r.pod->name == db::kMainPod);
}

void pause(Restore& r) { r.claims_left = pause_dispatch(*r.pod->conn, r.store_id, r.where.epoch, kDispatchLimit); }

void fence(Restore& r) {
  fence_writes(*r.pod->conn, r.store_id, r.where.epoch);
  r.fenced = MoveClock::now();
}

// One transaction on the pod: the store's rows deleted, the copy's inserted.
void replace(Restore& r) {
  // One snapshot of the copy for every table (it changes no more, but a look at it by
  // an operator's session must not mix into what is read).
  pqxx::transaction<pqxx::isolation_level::repeatable_read, pqxx::readwrite_policy::read_only> from(*r.copy);
  pqxx::work to(*r.pod->conn);
  // Without the foreign keys' checks and the triggers, as the move deletes and copies
  // (admin/move/tables.cpp says why): the copy's rows, consistent among themselves,
  // go in in any table order, and no trigger redoes what they already hold.
  to.exec("set local session_replication_role = replica");
  for (const auto& t : r.tables)
    r.deleted += static_cast<std::int64_t>(
        to.exec_params("delete from " + to.quote_name(t.name) + " where " + t.rows("$1"), r.store_id).affected_rows());
  for (const auto& t : r.tables) r.copied += copy_rows(from, to, t, r.store_id);
  to.commit();
}

void lift(Restore& r) {
  lift_fence(*r.pod->conn, r.store_id, r.where.epoch);
  r.lifted = MoveClock::now();
}

// The restore's phases, in order (store_restore.hpp says what each does): the move's
// dispatch_pause, fence and lift, on the store's own pod, around a replace of its own.
constexpr std::array<PhaseStep<Restore>, 5> kRestorePhases = {{
    {MovePhase::checks, check},
    {MovePhase::dispatch_pause, pause},
    {MovePhase::fence, fence},
    {MovePhase::replace, replace},
    {MovePhase::lift, lift},
}};

}  // namespace

void restore_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id_given,
                   const std::string& from_url) {
  const auto began = MoveClock::now();
  Restore r{directory, mover, canonical_store_id(store_id_given), from_url};
  run_phases<Restore>(kRestorePhases, r, r.clock, MovePhase::checks);
  r.clock.finish();

  json.begin_object()
      .field("object", "store_restore")
      .field("store_id", r.store_id)
      .field("pod", r.pod->name)
      .field("tables", static_cast<std::int64_t>(r.tables.size()))
      .field("rows_deleted", r.deleted)
      .field("rows_restored", r.copied)
      .field("dispatch_claims_left", r.claims_left);
  r.clock.write(json);
  json.field("write_pause_seconds", seconds_between(r.fenced, r.lifted))
      .field("total_seconds", seconds_between(began, MoveClock::now()))
      .end_object();
}

}  // namespace storeapi::admin
