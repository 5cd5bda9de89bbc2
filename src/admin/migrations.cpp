#include "admin/migrations.hpp"

#include "admin/errors.hpp"
#include "admin/roles.hpp"
#include "common/crypto.hpp"

#include <map>

namespace storeapi::admin {
namespace {

// Arbitrary constant naming the "storeapi migrations" advisory lock.
constexpr long long kMigrationLock = 0x73746f7265617069;  // "storeapi"

// version -> checksum of what `table` records.
std::map<std::string, std::string> recorded(pqxx::work& work, const std::string& table) {
  work.exec("create table if not exists " + table +
            " ("
            " version text primary key,"
            " name text not null,"
            " checksum text not null,"
            " applied_at timestamptz not null default now())");
  std::map<std::string, std::string> versions;
  for (const auto& row : work.exec("select version, checksum from " + table))
    versions.emplace(row["version"].c_str(), row["checksum"].c_str());
  return versions;
}

}  // namespace

MigrationReport migrate(pqxx::connection_base& conn, const Retention& retention) {
  pqxx::work work(conn);
  work.exec("set local client_min_messages = warning");
  work.exec("select pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");

  MigrationReport report;
  const auto applied = recorded(work, "schema_migrations");
  for (const Migration& m : embedded_migrations()) {
    std::string checksum = crypto::sha256_hex(m.sql);
    if (auto it = applied.find(m.version); it != applied.end()) {
      if (it->second != checksum)
        throw CommandError(std::string("migration ") + m.name +
                           " differs from the one applied to this database; migrations are "
                           "append-only, add a new one instead");
    } else {
      work.exec(m.sql);
      work.exec_params("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)",
                       m.version, m.name, checksum);
      report.applied.emplace_back(m.name);
    }
    report.current = m.version;
  }

  // After every numbered migration, so a repeatable file always meets the newest tables
  // (and a migration that must drop a function before its signature changes runs first).
  const auto defined = recorded(work, "schema_functions");
  for (const Migration& f : embedded_repeatable()) {
    std::string checksum = crypto::sha256_hex(f.sql);
    if (auto it = defined.find(f.version); it != defined.end() && it->second == checksum) continue;
    work.exec(f.sql);
    work.exec_params(
        "insert into schema_functions (version, name, checksum) values ($1, $2, $3)"
        " on conflict (version) do update set name = excluded.name, checksum = excluded.checksum, applied_at = now()",
        f.version, f.name, checksum);
    report.applied.emplace_back(std::string("functions/") + f.name);
  }
  work.exec_params("select api.extend_outbox_partitions(make_interval(secs => $1), make_interval(secs => $2))",
                   static_cast<double>(retention.partition.count()), static_cast<double>(retention.ahead().count()));
  // Last, so that what this run created is covered too.
  grant_runtime(work);
  work.commit();
  return report;
}

void write_migrations(JsonWriter& json, const MigrationReport& report) {
  json.key("applied").begin_array();
  for (const auto& name : report.applied) json.value(name);
  json.end_array().field("current", report.current);
}

}  // namespace storeapi::admin
