#include "admin/migrations/migrations.hpp"

#include "admin/base/errors.hpp"
#include "admin/base/progress.hpp"
#include "common/backoff.hpp"
#include "admin/migrations/roles.hpp"
#include "common/crypto.hpp"

#include <map>
#include <sstream>
#include <thread>

namespace storeapi::admin {
namespace {

// Arbitrary constant naming the "storeapi migrations" advisory lock.
constexpr long long kMigrationLock = 0x73746f7265617069;  // "storeapi"

// The session `migrate` runs in, for the whole call: the advisory lock that serialises
// concurrent callers (held by the session, since the migrations commit one by one; taken
// before the timeout is set, as waiting for another `migrate` holds no request), and
// lock_timeout on every statement, DDL or not: a statement queued behind a long
// transaction would otherwise hold every request queued behind it for as long
// (docs/MIGRATIONS.md). Both end with the call, or with the connection if the process dies.
class MigrationSession {
 public:
  MigrationSession(pqxx::connection_base& conn, std::chrono::milliseconds lock_timeout) : conn_(conn) {
    pqxx::nontransaction(conn_).exec("select pg_advisory_lock(" + std::to_string(kMigrationLock) + ")");
    pqxx::nontransaction(conn_).exec("set lock_timeout = " + std::to_string(lock_timeout.count()));
  }
  ~MigrationSession() {
    try {
      pqxx::nontransaction(conn_).exec("reset lock_timeout; select pg_advisory_unlock(" +
                                       std::to_string(kMigrationLock) + ")");
    } catch (const std::exception&) {
      // The connection is gone, and the lock with it.
    }
  }
  MigrationSession(const MigrationSession&) = delete;
  MigrationSession& operator=(const MigrationSession&) = delete;

 private:
  pqxx::connection_base& conn_;
};

// Runs `step` (which opens and commits its own transactions) until it gets through without
// losing a lock (a wait past lock_timeout, SQLSTATE 55P03, or a deadlock with a request),
// waiting longer between tries; the last failure is the caller's.
template <typename Step>
void retried(const std::string& what, const MigrateOptions& options, Step step) {
  Backoff backoff(options.first_backoff, options.longest_backoff);
  for (int attempt = 1;; ++attempt) {
    try {
      step();
      return;
    } catch (const pqxx::sql_error& e) {
      if (e.sqlstate() != "55P03") throw;
      if (attempt >= options.attempts)
        throw CommandError(what + " could not take its locks within lock_timeout " +
                           std::to_string(options.lock_timeout.count()) + " ms in " + std::to_string(attempt) +
                           " attempts (a long transaction holds a table it needs: see pg_stat_activity); what was "
                           "applied before it is kept, run `storeapi-admin migrate` again: " + e.what());
    } catch (const pqxx::deadlock_detected&) {
      if (attempt >= options.attempts) throw;
    }
    std::this_thread::sleep_for(backoff.next());
  }
}

// The statements of a no-transaction migration: each ends with `;` at the end of a line
// (such a migration holds no function body: docs/MIGRATIONS.md).
std::vector<std::string> statements(const std::string& sql) {
  std::vector<std::string> out;
  std::string current;
  std::istringstream lines(sql);
  for (std::string line; std::getline(lines, line);) {
    current += line + "\n";
    auto end = line.find_last_not_of(" \t\r");
    if (end != std::string::npos && line[end] == ';') {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (current.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(current);
  return out;
}

// version -> checksum of what `table` records.
std::map<std::string, std::string> recorded(pqxx::connection_base& conn, const std::string& table) {
  pqxx::work work(conn);
  work.exec("set local client_min_messages = warning");
  work.exec("create table if not exists " + table +
            " ("
            " version text primary key,"
            " name text not null,"
            " checksum text not null,"
            " applied_at timestamptz not null default now())");
  std::map<std::string, std::string> versions;
  for (const auto& row : work.exec("select version, checksum from " + table))
    versions.emplace(row["version"].c_str(), row["checksum"].c_str());
  work.commit();
  return versions;
}

void record(pqxx::transaction_base& work, const Migration& m, const std::string& checksum) {
  work.exec_params("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", m.version, m.name,
                   checksum);
}

// One migration and its record: in one transaction, or statement by statement then the
// record, as its header asks. Either way re-runnable: a no-transaction migration that
// stopped half-way is written to be run again from its start.
void apply(pqxx::connection_base& conn, const Migration& m, const std::string& checksum) {
  if (!runs_outside_transaction(m.sql)) {
    pqxx::work work(conn);
    work.exec(m.sql);
    record(work, m, checksum);
    work.commit();
    return;
  }
  for (const std::string& statement : statements(m.sql)) pqxx::nontransaction(conn).exec(statement);
  pqxx::work work(conn);
  record(work, m, checksum);
  work.commit();
}

// The header: the comment lines the file starts with.
std::vector<std::string> header(std::string_view sql) {
  std::vector<std::string> out;
  std::istringstream lines{std::string(sql)};
  for (std::string line; std::getline(lines, line) && line.rfind("--", 0) == 0;) out.push_back(std::move(line));
  return out;
}

}  // namespace

bool runs_outside_transaction(std::string_view sql) {
  for (const std::string& line : header(sql))
    if (line.rfind("-- migration: no-transaction", 0) == 0) return true;
  return false;
}

std::vector<std::string> statements_after_commit(std::string_view sql) {
  constexpr std::string_view kThen = "-- migration: then ";
  std::vector<std::string> out;
  for (const std::string& line : header(sql))
    if (line.rfind(kThen, 0) == 0) out.push_back(line.substr(kThen.size()));
  return out;
}

MigrationReport migrate(pqxx::connection_base& conn, const Retention& retention, const MigrateOptions& options) {
  pqxx::nontransaction(conn).exec("set client_min_messages = warning");
  MigrationSession session(conn, options.lock_timeout);

  MigrationReport report;
  const auto applied = recorded(conn, "schema_migrations");
  Progress progress("migrate", "migrations");
  for (const Migration& m : options.migrations) {
    progress.update("applying", report.applied.size() + applied.size(), options.migrations.size());
    std::string checksum = crypto::sha256_hex(m.sql);
    if (auto it = applied.find(m.version); it != applied.end()) {
      if (it->second != checksum)
        throw CommandError(std::string("migration ") + m.name +
                           " differs from the one applied to this database; migrations are "
                           "append-only, add a new one instead");
    } else {
      retried(std::string("migration ") + m.name, options, [&] { apply(conn, m, checksum); });
      report.applied.emplace_back(m.name);
    }
    report.current = m.version;
  }

  // After every numbered migration, so a repeatable file always meets the newest tables
  // (and a migration that must drop a function before its signature changes runs first).
  const auto defined = recorded(conn, "schema_functions");
  for (const Migration& f : options.repeatable) {
    std::string checksum = crypto::sha256_hex(f.sql);
    if (auto it = defined.find(f.version); it != defined.end() && it->second == checksum) continue;
    // Recorded with the file, or after what its header runs once it has committed: an
    // interrupt before the record leaves the file to be applied again, follow-up and all.
    const std::vector<std::string> then = statements_after_commit(f.sql);
    const auto record_file = [&](pqxx::transaction_base& work) {
      work.exec_params(
          "insert into schema_functions (version, name, checksum) values ($1, $2, $3)"
          " on conflict (version) do update set name = excluded.name, checksum = excluded.checksum, applied_at = now()",
          f.version, f.name, checksum);
    };
    retried(std::string("functions/") + f.name, options, [&] {
      pqxx::work work(conn);
      work.exec(f.sql);
      if (then.empty()) record_file(work);
      work.commit();
    });
    if (!then.empty())
      retried(std::string("functions/") + f.name + "'s follow-up", options, [&] {
        for (const std::string& statement : then) pqxx::nontransaction(conn).exec(statement);
        pqxx::work work(conn);
        record_file(work);
        work.commit();
      });
    report.applied.emplace_back(std::string("functions/") + f.name);
  }
  retried("the outbox's time slots", options, [&] {
    pqxx::work work(conn);
    work.exec_params("select api.extend_outbox_partitions(make_interval(secs => $1), make_interval(secs => $2))",
                     static_cast<double>(retention.partition.count()),
                     static_cast<double>(retention.ahead().count()));
    work.commit();
  });
  // Last, so that what this run created is covered too.
  retried("the runtime role's grants", options, [&] {
    pqxx::work work(conn);
    grant_runtime(work);
    work.commit();
  });
  return report;
}

void write_migrations(JsonWriter& json, const MigrationReport& report) {
  json.key("applied").begin_array();
  for (const auto& name : report.applied) json.value(name);
  json.end_array().field("current", report.current);
}

}  // namespace storeapi::admin
