// The LISTEN connection when its database stops answering without closing the connection
// (every process of the cluster SIGSTOPped: what a network partition or a frozen host
// looks like from here). The listener must notice within its ping timeout and listen
// again once the database answers, reporting "*" so that caches start over.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <string>
#include <vector>

#include "db/listener.hpp"
#include "runtime/io.hpp"
#include "support/run_task.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

// Awaits `condition`, checking every 10 ms; false if it did not hold within `limit`.
template <class Condition>
runtime::task<bool> within(std::chrono::milliseconds limit, Condition condition) {
  const auto deadline = runtime::Clock::now() + limit;
  while (!condition()) {
    if (runtime::Clock::now() > deadline) co_return false;
    co_await runtime::sleep_for(10ms);
  }
  co_return true;
}

// The first value of `sql`'s answer ("" when it has no row).
std::string query_one(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  EXPECT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  PGresult* r = PQexec(conn, sql.c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(conn);
  std::string value = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
  PQclear(r);
  PQfinish(conn);
  return value;
}

void notify(const std::string& url, const std::string& channel, const std::string& payload) {
  query_one(url, "select pg_notify('" + channel + "', '" + payload + "')");
}

TEST(DbListener, GivesUpAConnectionThatStopsAnsweringAndListensAgain) {
  ThrowawayCluster cluster;
  const std::string channel = "listener_test";
  std::vector<std::string> received;
  run_on_reactor([&]() -> runtime::task<void> {
    db::Listener listener(cluster.url(), channel, [&](std::string_view p) { received.emplace_back(p); },
                          {.idle_before_ping = 200ms, .ping_timeout = 500ms});
    listener.start();
    EXPECT_TRUE(co_await within(30s, [&] { return listener.listening(); }));
    cluster.freeze();
    // Without the ping it would wait on the silent socket for ever.
    EXPECT_TRUE(co_await within(15s, [&] { return !listener.listening(); }));
    cluster.thaw();
    EXPECT_TRUE(co_await within(30s, [&] { return listener.listening(); }));
    notify(cluster.url(), channel, "key:after");
    EXPECT_TRUE(co_await within(30s, [&] { return received.size() >= 3; }));
  });
  cluster.thaw();  // in case a failed expectation left it frozen
  ASSERT_EQ(received.size(), 3u);
  EXPECT_EQ(received[0], "*");
  EXPECT_EQ(received[1], "*");  // once per connection: what was sent meanwhile is lost
  EXPECT_EQ(received[2], "key:after");
}

TEST(DbListener, KeepsAQuietButHealthyConnection) {
  ThrowawayCluster cluster;
  const std::string channel = "listener_quiet";
  std::vector<std::string> received;
  run_on_reactor([&]() -> runtime::task<void> {
    db::Listener listener(cluster.url(), channel, [&](std::string_view p) { received.emplace_back(p); },
                          {.idle_before_ping = 50ms, .ping_timeout = 5'000ms, .application_name = "quiet_listener"});
    listener.start();
    EXPECT_TRUE(co_await within(30s, [&] { return listener.listening(); }));
    // Many pings, each answered: each is a statement of the session's own (LISTEN again),
    // which starts anew in pg_stat_activity; seen from outside, five of them at least.
    const std::string statement_start =
        "select query_start from pg_stat_activity where application_name = 'quiet_listener'";
    std::string last = query_one(cluster.url(), statement_start);
    int pings = 0;
    EXPECT_TRUE(co_await within(30s, [&] {
      const std::string now = query_one(cluster.url(), statement_start);
      if (now != last) ++pings;
      last = now;
      return pings >= 5;
    }));
    // The session still shows its LISTEN, as the admin tool finds the servers by it; an
    // empty query as the ping would show "".
    EXPECT_EQ(query_one(cluster.url(), "select query from pg_stat_activity where application_name = 'quiet_listener'"),
              "LISTEN \"" + channel + "\"");
    notify(cluster.url(), channel, "key:quiet");
    EXPECT_TRUE(co_await within(30s, [&] { return received.size() >= 2; }));
  });
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0], "*");  // never reconnected
  EXPECT_EQ(received[1], "key:quiet");
}

}  // namespace
}  // namespace storeapi::testing
