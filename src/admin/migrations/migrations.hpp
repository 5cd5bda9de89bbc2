#pragma once
// The sql/ migrations, embedded at build time, and applying them without stopping traffic
// (docs/MIGRATIONS.md): each in its own transaction, under a short lock_timeout, retried.
#include "admin/base/json.hpp"
#include "common/retention.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <span>
#include <string>
#include <vector>

namespace storeapi::admin {

struct Migration {
  const char* version;  // "001"
  const char* name;     // "001_foundation"
  const char* sql;
};

// In version order (generated from sql/*.sql by embed_migrations.py).
std::span<const Migration> embedded_migrations();
// The repeatable files (sql/functions/*.sql), in file name order; version is the number
// the name starts with.
std::span<const Migration> embedded_repeatable();

// A migration whose header says `-- migration: no-transaction` (CREATE INDEX
// CONCURRENTLY, a batched backfill whose procedure commits between batches) runs
// statement by statement outside a transaction; docs/MIGRATIONS.md.
bool runs_outside_transaction(std::string_view sql);

// The statements a repeatable file's header names with `-- migration: then <statement>`, in
// order: run outside a transaction once the file has committed (a procedure that commits
// between batches: re-rendering what the file's new definitions make stale), before the
// file is recorded; docs/MIGRATIONS.md.
std::vector<std::string> statements_after_commit(std::string_view sql);

struct MigrateOptions {
  // How long one DDL statement may wait for its lock; past it the statement gives up (and
  // with it the requests queued behind its lock request are let through), and the
  // migration is tried again after a backoff, up to `attempts` times in all.
  std::chrono::milliseconds lock_timeout{3000};
  int attempts = 10;
  std::chrono::milliseconds first_backoff{500};
  std::chrono::milliseconds longest_backoff{5000};
  // What to apply: the embedded files; a test gives its own.
  std::span<const Migration> migrations = embedded_migrations();
  std::span<const Migration> repeatable = embedded_repeatable();
};

struct MigrationReport {
  std::vector<std::string> applied;  // names applied by this call, in order
  std::string current;               // the newest version now in the database
};

// Applies every migration not yet recorded in schema_migrations, each in its own
// transaction with its record, then every repeatable file whose text differs from the one
// recorded in schema_functions (reported as "functions/NAME"), each likewise. Every
// statement waits at most `options.lock_timeout` for a lock; a migration that timed out
// is retried, and after `options.attempts` the call throws CommandError, keeping what was
// applied before it, so that running it again continues where it stopped. Concurrent
// callers are serialised by an advisory lock. A recorded migration whose text has changed
// since is an error (CommandError): migrations are append-only; repeatable files are
// edited in place. Last, the outbox's time slots are created ahead of now with
// `retention`'s width (the dispatcher keeps them ahead from then on), so the writes have
// partitions to go to.
MigrationReport migrate(pqxx::connection_base& conn, const Retention& retention = {},
                        const MigrateOptions& options = {});

// The report's fields, "applied" and "current", into the object being written.
void write_migrations(JsonWriter& json, const MigrationReport& report);

}  // namespace storeapi::admin
