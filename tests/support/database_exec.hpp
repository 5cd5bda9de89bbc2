#pragma once
// One statement on a test database, its parameters $1... from `args`, on a connection of
// its own (committed when it returns): what a test changes or reads as an operator or
// another process would.
#include <pqxx/pqxx>

#include <string>

#include "support/test_database.hpp"

namespace storeapi::testing {

template <class... Args>
void exec(const TestDatabase& db, const std::string& sql, const Args&... args) {
  auto conn = db.connect();
  pqxx::nontransaction work(*conn);
  work.exec_params(sql, args...);
}

// The first column of the statement's first row: "" when it is null or there is no row.
template <class... Args>
std::string value(const TestDatabase& db, const std::string& sql, const Args&... args) {
  auto conn = db.connect();
  pqxx::nontransaction work(*conn);
  const pqxx::result r = work.exec_params(sql, args...);
  return r.empty() || r[0][0].is_null() ? "" : r[0][0].c_str();
}

}  // namespace storeapi::testing
