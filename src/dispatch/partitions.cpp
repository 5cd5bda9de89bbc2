#include "dispatch/partitions.hpp"

#include "dispatch/config.hpp"

#include <pqxx/pqxx>

#include <algorithm>

namespace storeapi::dispatch {
namespace {

// Arbitrary constant naming the "outbox partitions" advisory lock.
constexpr long long kPartitionsLock = 0x6f7574626f78;  // "outbox"

// No statement of a pass may hold the dispatcher's loop for long (a slot's drop waits for
// its locks at most 200 ms, api.drop_outbox_slot): a pass cancelled is retried by the next.
constexpr const char* kStatementTimeout = "'5s'";

std::string seconds(std::chrono::seconds s) { return std::to_string(s.count()) + " seconds"; }

}  // namespace

struct Partitions::Session {
  explicit Session(const std::string& url) : conn(url) {
    // Named apart from the outbox's two connections: a drop waiting on a long transaction
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
      tx.exec_params("select api.drop_outbox_slot($1)", row["slot"].c_str());
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
