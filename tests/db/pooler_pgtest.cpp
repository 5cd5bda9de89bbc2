// The server's pools through Debian 12's PgBouncer (1.18), its LISTEN connection straight to
// the database (STOREAPI_LISTEN_DATABASE_URL), as docs/SCALING.md "Poolers" says:
// - session mode: every request is served, the LISTEN session is not among PgBouncer's
//   clients, `key revoke` counts the server and waits for it, and the revoked key is
//   refused by the next request;
// (Transaction mode for the pools is not tested: PgBouncer 1.18 does not keep protocol-level
// prepared statements, so a request fails whenever PgBouncer hands it a server connection the
// pool never prepared on — PgBouncer's choice, which no test here can force; see
// docs/SCALING.md "Poolers".)
// - a LISTEN through transaction mode would lose its session: the server does not start
//   (db/start_check.hpp), the message naming STOREAPI_LISTEN_DATABASE_URL.
// Seen failing without the feature: with main.cpp's Listener given config->database_url,
// the LISTEN session goes through PgBouncer and the first test's client count is 5, not 4;
// with the start-up check of the LISTEN session left out, the server starts through
// transaction mode.
#include <gtest/gtest.h>

#include <chrono>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "admin/admin_cli.hpp"
#include "auth/auth_fixture.hpp"
#include "support/pgbouncer_process.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr unsigned kThreads = 2, kConnsPerThread = 2;

class Pooler : public AuthTest {
 protected:
  void SetUp() override {}

  // The servers that `key revoke` waits for, counted as it counts them.
  std::string servers_counted() {
    return query_value(
        "select count(*) from pg_stat_activity where datname = current_database()"
        " and application_name = 'storeapi' and query like 'LISTEN %'");
  }

  // `clients` HTTP connections at once, each sending `each` list requests; the statuses.
  std::map<int, int> burst(const std::string& key, int clients = 16, int each = 5) {
    std::vector<std::vector<int>> statuses(clients);
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c)
      threads.emplace_back([&, c] {
        HttpClient client(server().port(), kReplyTimeout);
        for (int i = 0; i < each; ++i)
          statuses[c].push_back(client.get("/v1/products?limit=" + std::to_string(1 + (c + i) % 5), bearer(key)).status);
      });
    for (auto& t : threads) t.join();
    std::map<int, int> counts;
    for (const auto& s : statuses)
      for (int status : s) ++counts[status];
    return counts;
  }

  // Its pools sign in as the runtime role, as the server would without it.
  PgBouncerProcess pgbouncer_{"postgresql://" + std::string(admin::kRuntimeRole) + db_.url().substr(db_.url().find('@'))};
};

TEST_F(Pooler, SessionModePoolsWithADirectListenRevokeAtOnce) {
  ASSERT_NO_FATAL_FAILURE(start_server(kThreads, kConnsPerThread,
                                       {{"STOREAPI_DATABASE_URL", pgbouncer_.url("session")},
                                        {"STOREAPI_LISTEN_DATABASE_URL", api_url(db_)}}));
  EXPECT_EQ(pgbouncer_.clients("session"), static_cast<int>(kThreads * kConnsPerThread));
  EXPECT_EQ(servers_counted(), "1");

  auto store = db_.create_store();
  auto key = create_key(store.id);
  const auto statuses = burst(key.key);
  EXPECT_EQ(statuses, (std::map<int, int>{{200, 80}})) << server().stderr_text();
  auto warm = warm_on_every_core(key.key);  // cached on both cores

  CliResult revoked = run_admin({"key", "revoke", "--key", key.id}, db_.url());
  EXPECT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_EQ(revoked.err, "");  // no "confirmation(s) missing": the server was counted and answered
  for (HttpClient& connection : warm)
    expect_error(connection.get("/v1/store", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
}

// A LISTEN through transaction mode would lose its session (the revocations would never
// reach the server, which would serve revoked keys from its cache): the server does not
// start, and says which setting to change, whether the URL was given for LISTEN or LISTEN
// fell back to STOREAPI_DATABASE_URL.
TEST_F(Pooler, AListenThroughTransactionModeStopsTheStart) {
  const std::map<std::string, std::string> listen_given = {
      {"STOREAPI_DATABASE_URL", pgbouncer_.url("session")},
      {"STOREAPI_LISTEN_DATABASE_URL", pgbouncer_.url("transaction")}};
  const std::map<std::string, std::string> listen_unset = {{"STOREAPI_DATABASE_URL", pgbouncer_.url("transaction")}};
  for (const auto& settings : {listen_given, listen_unset}) {
    ProcessOptions options;
    options.env = settings;
    options.wait_for_listening = false;
    ServerProcess server(options);
    EXPECT_EQ(server.wait_exit(30s), std::optional<int>(1)) << server.stderr_text();
    EXPECT_NE(server.stderr_text().find("STOREAPI_LISTEN_DATABASE_URL"), std::string::npos) << server.stderr_text();
    EXPECT_NE(server.stderr_text().find("transaction pooler"), std::string::npos) << server.stderr_text();
  }
}

}  // namespace
}  // namespace storeapi::testing
