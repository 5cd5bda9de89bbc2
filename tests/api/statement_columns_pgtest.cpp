// Every statement the server prepares declares its parameters and result columns by name
// and type beside its SQL (db/statement.hpp, db/row.hpp); here each declaration is held
// to PostgreSQL's own description of the prepared statement (PQdescribePrepared): the
// number, names and type OIDs of the columns, and the number and types of the parameters.
// A column added in the middle of a select, renamed, or of another type fails here
// instead of shifting every reader's column numbers at run time.
// Seen failing: with KeyByHash's rate_per_minute declared int8, EveryDeclarationMatchesPostgres
// said "column 13 is declared rate_per_minute (20), the SQL returns rate_per_minute (23)".
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "api/statements.hpp"
#include "db/result.hpp"
#include "db/statement.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {
namespace {

struct Finish {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Connection = std::unique_ptr<PGconn, Finish>;

std::string oid(db::Type type) { return std::to_string(static_cast<unsigned>(type)); }

// Why `s`'s declaration differs from what PostgreSQL describes once `conn` prepared it,
// or nullopt when every parameter and column agrees.
std::optional<std::string> description_mismatch(PGconn* conn, const db::Statement& s) {
  const db::Result prepared(PQprepare(conn, s.name, s.sql, s.param_count(), nullptr));
  if (!prepared.ok()) return "does not prepare: " + std::string(prepared.error_message());
  PGresult* described = PQdescribePrepared(conn, s.name);
  const db::Result owner(described);  // clears it
  if (!owner.ok()) return "cannot be described: " + std::string(owner.error_message());
  std::string problems;
  const auto problem = [&](const std::string& text) { problems += (problems.empty() ? "" : "; ") + text; };
  if (PQnparams(described) != s.param_count())
    problem("declares " + std::to_string(s.param_count()) + " parameters, PostgreSQL sees " +
            std::to_string(PQnparams(described)));
  for (int i = 0; i < std::min(PQnparams(described), s.param_count()); ++i) {
    const db::Column& declared = s.params[static_cast<std::size_t>(i)];
    if (std::to_string(PQparamtype(described, i)) != oid(declared.type))
      problem("parameter $" + std::to_string(i + 1) + " (" + declared.name + ") is declared type " +
              oid(declared.type) + ", PostgreSQL infers " + std::to_string(PQparamtype(described, i)));
  }
  const int columns = static_cast<int>(s.columns.size());
  if (PQnfields(described) != columns)
    problem("declares " + std::to_string(columns) + " columns, the SQL returns " +
            std::to_string(PQnfields(described)));
  for (int i = 0; i < std::min(PQnfields(described), columns); ++i) {
    const db::Column& declared = s.columns[static_cast<std::size_t>(i)];
    const std::string name = PQfname(described, i);
    const std::string type = std::to_string(PQftype(described, i));
    if (name != declared.name || type != oid(declared.type))
      problem("column " + std::to_string(i) + " is declared " + declared.name + " (" + oid(declared.type) +
              "), the SQL returns " + name + " (" + type + ")");
  }
  if (problems.empty()) return std::nullopt;
  return problems;
}

class StatementColumns : public ::testing::Test {
 protected:
  Connection connect() {
    Connection conn(PQconnectdb(db_.url().c_str()));
    EXPECT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
    return conn;
  }
  TestDatabase db_;
};

TEST_F(StatementColumns, EveryDeclarationMatchesPostgres) {
  Connection conn = connect();
  ASSERT_FALSE(api::statements().empty());
  for (const db::Statement& s : api::statements())
    EXPECT_EQ(description_mismatch(conn.get(), s), std::nullopt) << s.name;
}

// The check itself: a declaration that disagrees in order, name, type or count is named.
TEST_F(StatementColumns, ADisagreementIsNamed) {
  Connection conn = connect();
  static constexpr db::Column kOneText[] = {{"n", db::Type::text}};
  static constexpr db::Column kSwapped[] = {{"b", db::Type::int8}, {"a", db::Type::text}};
  static constexpr db::Column kRight[] = {{"a", db::Type::text}, {"b", db::Type::int8}};
  static constexpr db::Column kInt8[] = {{"n", db::Type::int8}};
  const char* sql = "select $1::text as a, 2::int8 as b";
  EXPECT_EQ(description_mismatch(conn.get(), {"right", sql, kOneText, kRight}), std::nullopt);
  const auto swapped = description_mismatch(conn.get(), {"swapped", sql, kOneText, kSwapped});
  ASSERT_TRUE(swapped);
  EXPECT_NE(swapped->find("column 0 is declared b"), std::string::npos) << *swapped;
  const auto fewer = description_mismatch(conn.get(), {"fewer", sql, kOneText, kOneText});
  ASSERT_TRUE(fewer);
  EXPECT_NE(fewer->find("declares 1 columns, the SQL returns 2"), std::string::npos) << *fewer;
  const auto parameter = description_mismatch(conn.get(), {"parameter", sql, kInt8, kRight});
  ASSERT_TRUE(parameter);
  EXPECT_NE(parameter->find("parameter $1 (n) is declared type 20, PostgreSQL infers 25"), std::string::npos)
      << *parameter;
}

}  // namespace
}  // namespace storeapi::testing
