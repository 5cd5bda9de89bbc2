#include "dispatch/partitions.hpp"

#include "dispatch/config.hpp"

#include <pqxx/pqxx>

#include <algorithm>

namespace storeapi::dispatch {
namespace {

// Arbitrary constant naming the "outbox partitions" advisory lock.
constexpr long long kPartitionsLock = 0x6f7574626f78;  // "outbox"

// A detach waits for the transactions that may still see the partition; one held open
// for long (a report, a stuck client) must not hold the dispatcher's loop: the statement
// is cancelled, the partition stays "detach pending" and a later pass finalizes it.
constexpr const char* kStatementTimeout = "'5s'";

std::string seconds(std::chrono::seconds s) { return std::to_string(s.count()) + " seconds"; }

// Detaches and drops the slot's partition of every table, then forgets the slot; each step
// is skipped when an earlier, interrupted pass did it already.
void drop_slot(pqxx::nontransaction& tx, const std::string& slot) {
  for (const auto& row : tx.exec("select unnest(api.outbox_tables()) as name")) {
    const std::string table = row["name"].c_str();
    const std::string partition = table + "_" + slot;
    auto attached = tx.exec_params(
        "select inhdetachpending from pg_inherits where inhrelid = to_regclass(quote_ident($1))", partition);
    if (!attached.empty())
      tx.exec("alter table " + tx.quote_name(table) + " detach partition " + tx.quote_name(partition) +
              (attached[0]["inhdetachpending"].as<bool>() ? " finalize" : " concurrently"));
    tx.exec("drop table if exists " + tx.quote_name(partition));
  }
  tx.exec_params("delete from outbox_partitions where name = $1", slot);
}

}  // namespace

struct Partitions::Session {
  explicit Session(const std::string& url) : conn(url) {
    // Named apart from the outbox's two connections: a detach waiting on a long transaction
    // shows as this in pg_stat_activity.
    conn.set_variable("application_name", std::string("'").append(kApplicationName).append("-partitions'"));
    conn.set_variable("statement_timeout", kStatementTimeout);
    conn.set_variable("client_min_messages", "warning");
  }

  pqxx::connection conn;
};

Partitions::Partitions(std::string database_url, Retention retention)
    : database_url_(std::move(database_url)), retention_(retention) {}

Partitions::~Partitions() = default;

std::chrono::milliseconds Partitions::interval() const {
  using std::chrono::milliseconds;
  return std::clamp(std::chrono::duration_cast<milliseconds>(retention_.partition) / 4, milliseconds(250),
                    milliseconds(60'000));
}

Partitions::Pass Partitions::maintain() {
  if (!session_) session_ = std::make_unique<Session>(database_url_);
  Pass pass;
  pqxx::nontransaction tx(session_->conn);
  const auto slots_end = [&] {
    return tx.exec1("select coalesce(extract(epoch from max(ends_at))::bigint, 0) as slots_end from outbox_partitions")
        ["slots_end"]
        .as<std::int64_t>();
  };
  if (!tx.exec1("select pg_try_advisory_lock(" + std::to_string(kPartitionsLock) + ") as locked")["locked"].as<bool>()) {
    pass.slots_end = slots_end();  // another dispatcher is at it
    return pass;
  }
  try {
    tx.exec_params(
        "insert into outbox_retention (retention, partition_width) values ($1::interval, $2::interval)"
        " on conflict (singleton) do update set retention = excluded.retention,"
        " partition_width = excluded.partition_width, recorded_at = now()",
        seconds(retention_.keep), seconds(retention_.partition));
    tx.exec_params("select api.extend_outbox_partitions($1::interval, $2::interval)", seconds(retention_.partition),
                   seconds(retention_.ahead()));
    for (const auto& row : tx.exec_params("select api.expired_outbox_partitions($1::interval) as slot", seconds(retention_.keep))) {
      drop_slot(tx, row["slot"].c_str());
      pass.dropped.emplace_back(row["slot"].c_str());
    }
    pass.slots_end = slots_end();
  } catch (...) {
    session_.reset();  // the session's advisory lock goes with it
    throw;
  }
  tx.exec("select pg_advisory_unlock(" + std::to_string(kPartitionsLock) + ")");
  return pass;
}

}  // namespace storeapi::dispatch
