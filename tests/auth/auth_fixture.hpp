#pragma once
// Shared fixture of the authentication integration tests: each test gets a fresh migrated
// database and its own storeapi process (2 threads, so a key cached on one core and
// invalidated through the other is covered), plus helpers to call it, to run the real
// storeapi-admin and to check docs/DESIGN.md §2's error envelope.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/http_client.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {

// How long a test waits for one response: a loaded test machine can be slow, but a reply
// that takes this long is a hang.
inline constexpr std::chrono::seconds kReplyTimeout{30};

// The fields of {"error":{"type","code","message","param","request_id"}}.
struct ErrorBody {
  std::string type;
  std::string code;
  std::string message;
  std::optional<std::string> param;
  std::string request_id;
};

// Parses an error response; fails the test when the envelope is not exactly docs/DESIGN.md's
// (five fields, JSON content type, request_id equal to the Request-Id header).
ErrorBody error_of(const HttpResponse& reply);

// Expects an error response with this status, type and code (and `param` null).
void expect_error(const HttpResponse& reply, int status, const std::string& type, const std::string& code);

// Expects RateLimit-Limit (== `limit` when given), -Remaining and -Reset as integers.
void expect_rate_headers(const HttpResponse& reply, std::optional<long> limit = std::nullopt);
void expect_no_rate_headers(const HttpResponse& reply);

// The header as an integer; fails the test when absent or not a number.
long header_number(const HttpResponse& reply, const std::string& name);

class AuthTest : public ::testing::Test {
 protected:
  // A fresh database on the shared test cluster, or on the cluster of `cluster_url`.
  explicit AuthTest(const std::string& cluster_url = "") : db_(TestDatabase::Schema::migrated, cluster_url) {}

  void SetUp() override { start_server(); }

  // Starts the server for this test's database (threads × conns_per_thread pooled
  // connections, access log off, further `settings` such as STOREAPI_DB_TIMEOUT_MS), in
  // place of the one running, and returns once it listens.
  void launch_server(unsigned threads = 2, unsigned conns_per_thread = 2,
                     const std::map<std::string, std::string>& settings = {});
  // launch_server(), then waits until every connection and the LISTEN connection are up.
  void start_server(unsigned threads = 2, unsigned conns_per_thread = 2,
                    const std::map<std::string, std::string>& settings = {});
  ServerProcess& server() { return *server_; }

  HttpClient connect() { return HttpClient(server_->port(), kReplyTimeout); }
  // One request on a new connection.
  HttpResponse get(const std::string& target, const Headers& headers = {});

  // Opens `count` connections and sends GET /v1/store with `key` on each, until both
  // cores have served it (the server reports nothing per core, so enough connections
  // that SO_REUSEPORT spreads them; the returned connections stay open).
  std::vector<HttpClient> warm_on_every_core(const std::string& key, int count = 8);

  // Runs the real storeapi-admin against this test's database; expects exit 0.
  std::string admin(const std::vector<std::string>& args);

  // A key created through the admin tool, as a user would: {id, full key}.
  TestKey create_key(const std::string& store_id, const std::string& access = "full", const std::string& scopes = "",
                     const std::string& expires = "never");

  // Connections of this server to this database (pg_stat_activity, application_name
  // storeapi), and whether its LISTEN connection is among them.
  int server_connections();
  bool server_listening();
  // Waits until the server holds exactly threads × conns + 1 connections, one listening,
  // and every core answers /readyz.
  bool wait_connected();

  std::string query_value(const std::string& sql);

  TestDatabase db_;
  std::unique_ptr<ServerProcess> server_;
  unsigned threads_ = 0;
  unsigned conns_per_thread_ = 0;
};

}  // namespace storeapi::testing
