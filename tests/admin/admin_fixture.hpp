#pragma once
// Shared fixture of the storeapi-admin integration tests: one migrated database per test
// binary, a fresh store per test, and helpers that run the real binary.
#include "admin_cli.hpp"
#include "support/test_database.hpp"

#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include <stdexcept>
#include <string>
#include <vector>

namespace storeapi::testing {

class AdminTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { db_ = new TestDatabase(); }
  static void TearDownTestSuite() {
    delete db_;
    db_ = nullptr;
  }

  static TestDatabase& db() {
    if (!db_) throw std::runtime_error("no test database: see the set-up failure above");
    return *db_;
  }

  // Runs storeapi-admin against the test database; expects success and returns its JSON.
  simdjson::dom::element ok(const std::vector<std::string>& args);

  // Runs a command that must fail: exit code `code`, nothing on stdout, exactly one line
  // on stderr, and no row of the database changed. Returns the stderr line.
  std::string fails(const std::vector<std::string>& args, int code);

  // Runs `sql` in its own committed transaction; returns the single value of its single
  // row ("" for NULL).
  static std::string query_value(const std::string& sql);

  simdjson::dom::parser parser_;

 private:
  static inline TestDatabase* db_ = nullptr;
};

// Members of a JSON object, by type; each fails the test (throws) when absent or mistyped.
std::string str(simdjson::dom::element object, const char* key);
std::int64_t num(simdjson::dom::element object, const char* key);
bool flag(simdjson::dom::element object, const char* key);

// Collects NOTIFY payloads of one channel on its own connection.
class Listener : public pqxx::notification_receiver {
 public:
  Listener(pqxx::connection_base& conn, const std::string& channel) : notification_receiver(conn, channel) {}
  void operator()(const std::string& payload, int) override { payloads.push_back(payload); }
  // Waits up to 5 s for `payload` to arrive.
  bool wait_for(const std::string& payload);

  std::vector<std::string> payloads;
};

}  // namespace storeapi::testing
