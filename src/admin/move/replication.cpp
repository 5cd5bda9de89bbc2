#include "admin/move/replication.hpp"

#include "admin/base/errors.hpp"
#include "admin/move/phases.hpp"

#include <algorithm>
#include <string_view>
#include <thread>

namespace storeapi::admin {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How often a wait looks again: a copy takes seconds, so 50 ms costs little and keeps
// the phases' timings close to what PostgreSQL took.
constexpr milliseconds kPoll{50};
// A slot no walsender has read for this long is not coming back by itself: a subscription
// restarting after a lost connection takes about a second.
constexpr milliseconds kUnread{3'000};

std::string subscription_error(pqxx::nontransaction& work, const std::string& name) {
  auto r = work.exec_params(
      "select coalesce(st.apply_error_count, 0) + coalesce(st.sync_error_count, 0) as errors from pg_subscription s"
      " left join pg_stat_subscription_stats st on st.subid = s.oid where s.subname = $1",
      name);
  return "the subscription " + name + " stopped on an error (" + (r.empty() ? "0" : r[0]["errors"].c_str()) +
         " errors; the target's server log says which)";
}

}  // namespace

std::string literal(pqxx::connection_base& conn, const std::string& text) {
  std::string out(1, '\'');
  out += conn.esc(text);
  out += '\'';
  return out;
}

std::string replication_name(const std::string& store_id) {
  std::string name = "storeapi_move_";
  for (char c : store_id)
    if (c != '-') name.push_back(c);
  return name;
}

void publish_store(pqxx::connection& source, const std::string& store_id, const std::vector<StoreTable>& tables) {
  const std::string name = replication_name(store_id);
  std::string sql = "create publication " + name + " for table ";
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) sql += ", ";
    sql += source.quote_name(tables[i].name) + " where (" + tables[i].store_column + " = " +
           literal(source, store_id) + "::uuid)";
  }
  sql += " with (publish = 'insert, update, delete', publish_via_partition_root = true)";
  pqxx::nontransaction work(source);
  work.exec(sql);
  work.exec_params("select pg_create_logical_replication_slot($1, 'pgoutput')", name);
}

void subscribe(pqxx::connection& target, const std::string& store_id, const std::string& source_conninfo) {
  const std::string name = replication_name(store_id);
  pqxx::nontransaction work(target);
  work.exec("create subscription " + name + " connection " + literal(target, source_conninfo) + " publication " +
            name + " with (create_slot = false, slot_name = " + literal(target, name) +
            ", copy_data = true, disable_on_error = true)");
}

void wait_copied(pqxx::connection& target, pqxx::connection& source, const std::string& store_id,
                 const std::map<std::string, std::size_t>& rows_at_source, Progress& progress) {
  const std::string name = replication_name(store_id);
  pqxx::nontransaction work(target);
  pqxx::nontransaction on_source(source);
  std::size_t total = 0;
  for (const auto& [table, rows] : rows_at_source) total += rows;
  for (;;) {
    std::size_t copied = 0;
    for (const auto& row : work.exec_params(
             "select c.relname, r.srsubstate in ('r', 's') as done, coalesce(p.tuples_processed, 0) as copying"
             "  from pg_subscription s join pg_subscription_rel r on r.srsubid = s.oid"
             "  join pg_class c on c.oid = r.srrelid"
             "  left join pg_stat_progress_copy p on p.relid = r.srrelid and p.datid = s.subdbid"
             " where s.subname = $1 and s.subdbid = (select oid from pg_database where datname = current_database())",
             name)) {
      const auto at_source = rows_at_source.find(row["relname"].c_str());
      copied += row["done"].as<bool>() && at_source != rows_at_source.end() ? at_source->second
                                                                             : row["copying"].as<std::size_t>();
    }
    progress.update(phase_name(MovePhase::copying), std::min(copied, total), total);
    auto r = work.exec_params1(
        "select s.subenabled, count(*) filter (where r.srsubstate <> 'r') as copying from pg_subscription s"
        " left join pg_subscription_rel r on r.srsubid = s.oid"
        " where s.subname = $1 and s.subdbid = (select oid from pg_database where datname = current_database())"
        " group by s.subenabled",
        name);
    if (!r["subenabled"].as<bool>()) throw CommandError(subscription_error(work, name));
    if (r["copying"].as<long>() == 0) return;
    if (on_source.exec_params("select from pg_replication_slots where slot_name = $1", name).empty())
      throw CommandError("the replication slot " + name + " is gone from the source (a failover?): run the move again");
    std::this_thread::sleep_for(kPoll);
  }
}

void wait_caught_up(pqxx::connection& source, const std::string& store_id, milliseconds limit) {
  const std::string name = replication_name(store_id);
  pqxx::nontransaction work(source);
  const std::string position = work.exec1("select pg_current_wal_lsn()::text as position")["position"].c_str();
  const auto started = steady_clock::now();
  auto last_read = started;
  for (;;) {
    auto r = work.exec_params(
        "select coalesce(confirmed_flush_lsn >= $2::pg_lsn, false) as caught_up, active from pg_replication_slots"
        " where slot_name = $1",
        name, position);
    if (r.empty()) throw CommandError("the replication slot " + name + " is gone from the source");
    if (r[0]["caught_up"].as<bool>()) return;
    const auto now = steady_clock::now();
    if (r[0]["active"].as<bool>()) last_read = now;
    // Nobody reads the slot: the subscription stopped on an error (disable_on_error), or
    // the target is down.
    if (now - last_read > kUnread)
      throw CommandError("the target stopped reading the replication slot " + name +
                         " (its subscription stopped on an error, or it is down: its server log says which)");
    if (now - started > limit)
      throw CommandError("the target did not catch up with the source within " +
                         std::to_string(limit.count() / 1000) + " s");
    std::this_thread::sleep_for(kPoll / 5);
  }
}

void drop_subscription(pqxx::connection& target, const std::string& store_id) {
  const std::string name = replication_name(store_id);
  pqxx::nontransaction work(target);
  try {
    work.exec("drop subscription if exists " + name);
  } catch (const pqxx::failure& e) {  // SQLSTATE 08006, which pqxx raises as broken_connection
    // As PostgreSQL asks for a slot the publisher no longer has: detach it, then drop.
    if (std::string_view(e.what()).find("does not exist") == std::string_view::npos) throw;
    work.exec("alter subscription " + name + " disable");
    work.exec("alter subscription " + name + " set (slot_name = none)");
    work.exec("drop subscription " + name);
  }
}

void drop_publication(pqxx::connection& source, const std::string& store_id) {
  const std::string name = replication_name(store_id);
  pqxx::nontransaction work(source);
  work.exec("drop publication if exists " + name);
  // A slot still read by a walsender that is going away cannot be dropped yet.
  auto deadline = steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    auto r = work.exec_params("select active from pg_replication_slots where slot_name = $1", name);
    if (r.empty()) return;
    if (!r[0]["active"].as<bool>()) {
      work.exec_params("select pg_drop_replication_slot($1)", name);
      return;
    }
    if (steady_clock::now() > deadline) throw CommandError("the replication slot " + name + " is still in use");
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace storeapi::admin
