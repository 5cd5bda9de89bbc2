#include "admin/move/store_restore.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/move/checks.hpp"
#include "admin/move/fences.hpp"
#include "admin/move/phases.hpp"
#include "admin/move/replication.hpp"
#include "admin/move/tables.hpp"
#include "admin/base/pod_connection.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace storeapi::admin {
namespace {

constexpr std::chrono::milliseconds kDispatchLimit{5'000};

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

}  // namespace

void restore_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id_given,
                   const std::string& from_url) {
  const std::string store_id = canonical_store_id(store_id_given);
  const auto began = MoveClock::now();
  PhaseClock clock("store restore");
  clock.start("checks");
  const Placement where = placement(directory, store_id);
  lock_store_moves(directory, store_id, "store restore");
  {
    pqxx::nontransaction work(directory);
    if (!work.exec_params("select 1 from store_moves where store_id = $1 and phase <> 'done'", store_id).empty())
      throw CommandError("store " + store_id + " has a move left unfinished: run `store move` again first");
  }
  Pod pod = open_pod(directory, mover, where.pod);
  std::unique_ptr<pqxx::connection> copy = connect(from_url);
  check_same_schema(*copy, *pod.conn, pod.name);
  check_copy_has_store(*copy, store_id);
  cover_outbox(*copy, *pod.conn, store_id, pod.name);
  const std::vector<RestoredTable> tables = restored_tables(*pod.conn, pod.name == "main");

  clock.start("dispatch_pause");
  const std::int64_t claims_left = pause_dispatch(*pod.conn, store_id, where.epoch, kDispatchLimit);
  clock.start("fence");
  fence_writes(*pod.conn, store_id, where.epoch);
  const auto fenced = MoveClock::now();

  clock.start("replace");
  std::int64_t deleted = 0, copied = 0;
  {
    // One snapshot of the copy for every table (it changes no more, but a look at it by
    // an operator's session must not mix into what is read).
    pqxx::transaction<pqxx::isolation_level::repeatable_read, pqxx::readwrite_policy::read_only> from(*copy);
    pqxx::work to(*pod.conn);
    // Without the foreign keys' checks and the triggers, as the move deletes and copies
    // (admin/move/tables.cpp says why): the copy's rows, consistent among themselves,
    // go in in any table order, and no trigger redoes what they already hold.
    to.exec("set local session_replication_role = replica");
    for (const auto& t : tables)
      deleted += static_cast<std::int64_t>(
          to.exec_params("delete from " + to.quote_name(t.name) + " where " + t.rows("$1"), store_id).affected_rows());
    for (const auto& t : tables) copied += copy_rows(from, to, t, store_id);
    to.commit();
  }

  clock.start("lift");
  lift_fence(*pod.conn, store_id, where.epoch);
  const auto lifted = MoveClock::now();
  clock.finish();

  json.begin_object()
      .field("object", "store_restore")
      .field("store_id", store_id)
      .field("pod", pod.name)
      .field("tables", static_cast<std::int64_t>(tables.size()))
      .field("rows_deleted", deleted)
      .field("rows_restored", copied)
      .field("dispatch_claims_left", claims_left);
  clock.write(json);
  json.field("write_pause_seconds", seconds_between(fenced, lifted))
      .field("total_seconds", seconds_between(began, MoveClock::now()))
      .end_object();
}

}  // namespace storeapi::admin
