#pragma once
// One statement on a test database, its parameters $1... from `args`, on a connection of
// its own (committed when it returns): what a test changes as an operator or another
// process would.
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

}  // namespace storeapi::testing
