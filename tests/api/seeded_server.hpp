#pragma once
// The environment of an API integration test: a fresh database holding one seeded store
// (the seed covers every order, booking and product state), a full-access key, and the
// real storeapi server on that database. Each request goes over a fresh connection with
// the key; SQL checks go through a side connection. The store's rate limit is raised so
// no test ever meets it.
#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <simdjson.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/http_client.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {

// A variant by its product and its own id.
struct VariantRef {
  std::string product, variant;
  std::string path() const { return "/v1/products/" + product + "/variants/" + variant; }
};

// The nth (by creation) live variant of a live product of `store_id` in the database of
// `conn` (a pod's, for a store placed there).
VariantRef live_variant_on(pqxx::connection& conn, int nth, const std::string& store_id);

class SeededServer {
 public:
  // On the shared test cluster, or on the cluster of `cluster_url` (a ThrowawayCluster);
  // the server with further `settings` (start_api_server).
  explicit SeededServer(const std::string& cluster_url = "", std::map<std::string, std::string> settings = {});
  ~SeededServer();

  std::uint16_t port() const { return server_->port(); }
  std::uint16_t metrics_port() const { return server_->metrics_port(); }
  // What the server wrote to stderr so far.
  std::string server_stderr() const { return server_->stderr_text(); }
  const TestStore& store() const { return store_; }
  const TestKey& key() const { return key_; }
  TestDatabase& database() { return db_; }

  // A second seeded store of the same database, with its own full-access key.
  std::pair<TestStore, TestKey> another_store();

  // The nth (by creation) live variant of a live product of the store (or `store_id`).
  VariantRef live_variant(int nth, const std::string& store_id = {});
  // How many events have the resource `id` as data.object (only `type` when given).
  long long events_of(const std::string& id, const std::string& type = {});

  // One request with the full-access key (or `key`), over a fresh connection. A non-empty
  // body is sent as application/json unless `headers` name a Content-Type.
  HttpResponse request(std::string_view method, std::string_view path, std::string_view body = {},
                       Headers headers = {}) const;
  HttpResponse request_as(const std::string& key, std::string_view method, std::string_view path,
                          std::string_view body = {}, Headers headers = {}) const;

  // Stops the server (SIGTERM) and starts it again on the same database.
  void restart();
  // Kills the server (SIGKILL, as a crash would) and starts it again on the same database
  // (on a new port: read port() again).
  void kill_and_restart();
  // A new side connection for value(), count() and exec(), after the database restarted.
  void reconnect_sql() { sql_ = db_.connect(); }

  // The records whose stored document is not what the renderer makes of them now
  // (api.stale_documents), as "resource id, ..."; empty when every one is current.
  std::string stale_documents();

  // SQL on the side connection, with $1... parameters. value(): the first column of the
  // first row, "<null>" for SQL null; throws when there is no row.
  template <class... Args>
  std::string value(const std::string& sql, const Args&... args) {
    pqxx::nontransaction work(*sql_);
    pqxx::row row = work.exec_params1(sql, args...);
    return row[0].is_null() ? "<null>" : row[0].c_str();
  }
  // A JSON text in jsonb's canonical form (keys sorted, no spacing): compared with a
  // jsonb_build_object(...)::text of raw columns, the expected side does not come from
  // the renderer under test.
  std::string canonical_json(std::string_view text) { return value("select $1::jsonb::text", std::string(text)); }
  template <class... Args>
  long long count(const std::string& sql, const Args&... args) {
    return std::stoll(value(sql, args...));
  }
  template <class... Args>
  void exec(const std::string& sql, const Args&... args) {
    pqxx::nontransaction work(*sql_);
    work.exec_params(sql, args...);
  }

 private:
  void start_server();

  TestDatabase db_;
  std::map<std::string, std::string> settings_;
  TestStore store_;
  TestKey key_;
  std::unique_ptr<pqxx::connection> sql_;
  std::unique_ptr<ServerProcess> server_;
};

// SQL for a timestamp column and an amount column as the API prints them (docs/DESIGN.md:
// RFC 3339 UTC with milliseconds; amounts as strings with two decimals), for expected
// documents built from raw columns.
inline std::string sql_timestamp(const std::string& column) {
  return "to_char(" + column + " at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";
}
inline std::string sql_amount(const std::string& column) { return "to_char(" + column + ", 'FM9999999990.00')"; }

// Base of a test suite sharing one SeededServer (`env`) among its tests.
class SeededServerSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { env = new SeededServer(); }
  static void TearDownTestSuite() {
    delete env;
    env = nullptr;
  }
  // Whatever a test wrote, through the API or by hand, every stored document is still
  // its record's rendering (sql/functions/10_render.sql): no kind of write forgets one.
  void TearDown() override { EXPECT_EQ(env->stale_documents(), ""); }
  static SeededServer* env;
};

// A response body as JSON. get(pointer) is the value at that JSON pointer: a string's
// text, or any other value minified ("null", "19", "{...}"); throws when absent.
class Json {
 public:
  explicit Json(std::string_view text);
  std::string get(std::string_view pointer) const;
  bool has(std::string_view pointer) const;

 private:
  simdjson::dom::parser parser_;
  simdjson::dom::element root_;
};

// The response is the API error `code` with `status`, `param` (nullopt: JSON null) and
// the request's own Request-Id in the body.
::testing::AssertionResult is_error(const HttpResponse& res, int status, std::string_view code,
                                    std::optional<std::string_view> param = std::nullopt);

}  // namespace storeapi::testing
