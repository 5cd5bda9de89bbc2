#pragma once
// A prepared statement: every pooled connection prepares every registered statement when
// it connects, so requests only ever send Bind/Execute. A statement declares, beside its
// SQL, its parameters and its result columns by name and PostgreSQL type; readers see the
// columns through a row type (db/row.hpp), and a test holds every declaration to
// PostgreSQL's own description of the prepared statement
// (tests/api/statement_columns_pgtest.cpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace storeapi::db {

// PostgreSQL type OIDs (pg_type.oid, fixed for built-in types). A domain's column is
// described by its base type.
enum class Type : std::uint32_t {
  boolean = 16,
  int8 = 20,
  int4 = 23,
  text = 25,
  json = 114,
  timestamptz = 1184,
  numeric = 1700,
  void_ = 2278,
  uuid = 2950,
  pg_lsn = 3220,
  jsonb = 3802,
};

// A parameter ($1 is the first) or a result column.
struct Column {
  const char* name;
  Type type;
};

struct Statement {
  const char* name;
  const char* sql;
  // What a unit binds, in order: exactly $1 .. $params.size() must appear in `sql`
  // (parameter_mismatch checks it; the Pool refuses to start otherwise).
  std::span<const Column> params;
  std::span<const Column> columns;

  int param_count() const noexcept { return static_cast<int>(params.size()); }
};

// Why `statement`'s declared parameters do not match the $N placeholders of its SQL
// (outside quoted literals, quoted identifiers and comments), or nullopt when they do. A
// gap ($1 and $3 without $2) is a mismatch too: PostgreSQL cannot type an unused parameter.
std::optional<std::string> parameter_mismatch(const Statement& statement);

// Throws std::invalid_argument naming every statement with a mismatch: the server then
// fails at start-up rather than on the first request that binds the statement.
void check_parameters(std::span<const Statement> statements);

}  // namespace storeapi::db
