#pragma once
// Shared fixture of the authentication integration tests: each test gets a fresh migrated
// database and its own storeapi process (2 threads, so a key cached on one core and
// invalidated through the other is covered), plus helpers to call it, to run the real
// storeapi-admin and to check DESIGN §2's error envelope.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/auth_http.hpp"
#include "support/auth_server.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {

// The fields of {"error":{"type","code","message","param","request_id"}}.
struct ErrorBody {
  std::string type;
  std::string code;
  std::string message;
  std::optional<std::string> param;
  std::string request_id;
};

// Parses an error response; fails the test when the envelope is not exactly DESIGN's
// (five fields, JSON content type, request_id equal to the Request-Id header).
ErrorBody error_of(const HttpReply& reply);

// Expects an error response with this status, type and code (and `param` null).
void expect_error(const HttpReply& reply, int status, const std::string& type, const std::string& code);

// Expects RateLimit-Limit (== `limit` when given), -Remaining and -Reset as integers.
void expect_rate_headers(const HttpReply& reply, std::optional<long> limit = std::nullopt);
void expect_no_rate_headers(const HttpReply& reply);

// The header as an integer; fails the test when absent or not a number.
long header_number(const HttpReply& reply, const std::string& name);

class AuthTest : public ::testing::Test {
 protected:
  // A fresh database on the shared test cluster, or on the cluster of `cluster_url`.
  explicit AuthTest(const std::string& cluster_url = "") : db_(TestDatabase::Schema::migrated, cluster_url) {}

  // Starts the server for this test's database (threads × conns_per_thread pooled
  // connections) and waits until every connection and the LISTEN connection are up.
  void SetUp() override { start_server(); }

  void start_server(unsigned threads = 2, unsigned conns_per_thread = 2);
  AuthServer& server() { return *server_; }

  RawHttpConnection connect() { return RawHttpConnection(server_->port()); }
  // One request on a new connection.
  HttpReply get(const std::string& target, const HttpHeaders& headers = {});

  // Opens `count` connections and sends GET /v1/store with `key` on each, until both
  // cores have served it (the server reports nothing per core, so enough connections
  // that SO_REUSEPORT spreads them; the returned connections stay open).
  std::vector<RawHttpConnection> warm_on_every_core(const std::string& key, int count = 8);

  // Runs the real storeapi-admin against this test's database; expects exit 0.
  std::string admin(const std::vector<std::string>& args);

  // A key created through the admin tool, as a user would: {id, full key}.
  TestKey create_key(const std::string& store_id, const std::string& access = "full", const std::string& scopes = "",
                     const std::string& expires = "never");

  // Connections of this server to this database (pg_stat_activity, application_name
  // storeapi), and whether its LISTEN connection is among them.
  int server_connections();
  bool server_listening();
  // Waits until the server holds exactly threads × conns + 1 connections, one listening.
  bool wait_connected();

  std::string query_value(const std::string& sql);

  TestDatabase db_;
  std::unique_ptr<AuthServer> server_;
};

}  // namespace storeapi::testing
