#pragma once
// A prepared statement: every pooled connection prepares every registered statement when
// it connects, so requests only ever send Bind/Execute.
#include <optional>
#include <span>
#include <string>

namespace storeapi::db {

struct Statement {
  const char* name;
  const char* sql;
  // How many parameters a unit binds: exactly $1 .. $param_count must appear in `sql`
  // (parameter_mismatch checks it; the Pool refuses to start otherwise).
  int param_count;
};

// Why `statement`'s param_count does not match the $N placeholders of its SQL (outside
// quoted literals, quoted identifiers and comments), or nullopt when it does. A gap ($1
// and $3 without $2) is a mismatch too: PostgreSQL cannot type an unused parameter.
std::optional<std::string> parameter_mismatch(const Statement& statement);

// Throws std::invalid_argument naming every statement with a mismatch: the server then
// fails at start-up rather than on the first request that binds the statement.
void check_parameters(std::span<const Statement> statements);

}  // namespace storeapi::db
