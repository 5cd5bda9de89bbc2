#pragma once
// The sql/ migrations, embedded at build time, and applying them.
#include "admin/json.hpp"
#include "common/retention.hpp"

#include <pqxx/pqxx>

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

struct MigrationReport {
  std::vector<std::string> applied;  // names applied by this call, in order
  std::string current;               // the newest version now in the database
};

// Applies, in one transaction, every embedded migration not yet recorded in
// schema_migrations, then every repeatable file whose text differs from the one recorded
// in schema_functions (reported as "functions/NAME"). Concurrent callers are serialised
// by an advisory lock. A recorded migration whose text has changed since is an error
// (CommandError): migrations are append-only; repeatable files are edited in place.
// Last, the outbox's time slots are created ahead of now with `retention`'s width (the
// dispatcher keeps them ahead from then on), so the writes have partitions to go to.
MigrationReport migrate(pqxx::connection_base& conn, const Retention& retention = {});

// The report's fields, "applied" and "current", into the object being written.
void write_migrations(JsonWriter& json, const MigrationReport& report);

}  // namespace storeapi::admin
