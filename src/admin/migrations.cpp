#include "admin/migrations.hpp"

#include "admin/errors.hpp"
#include "common/crypto.hpp"

#include <map>

namespace storeapi::admin {
namespace {

// Arbitrary constant naming the "storeapi migrations" advisory lock.
constexpr long long kMigrationLock = 0x73746f7265617069;  // "storeapi"

}  // namespace

MigrationReport migrate(pqxx::connection& conn) {
  pqxx::work work(conn);
  work.exec("set local client_min_messages = warning");
  work.exec("select pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");
  work.exec(
      "create table if not exists schema_migrations ("
      " version text primary key,"
      " name text not null,"
      " checksum text not null,"
      " applied_at timestamptz not null default now())");

  std::map<std::string, std::string> recorded;  // version -> checksum
  for (const auto& row : work.exec("select version, checksum from schema_migrations"))
    recorded.emplace(row[0].c_str(), row[1].c_str());

  MigrationReport report;
  for (const Migration& m : embedded_migrations()) {
    std::string checksum = crypto::sha256_hex(m.sql);
    if (auto it = recorded.find(m.version); it != recorded.end()) {
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
  work.commit();
  return report;
}

}  // namespace storeapi::admin
