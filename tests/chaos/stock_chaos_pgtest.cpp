// Concurrent idempotent stock adjustments (api/stock_writers.hpp: the clients and the
// invariants checked) while the server is killed (SIGKILL) and restarted, and while
// PostgreSQL restarts under a running server. Each run names its number of faults, so that
// "something happened" is checked too (StockWriters::check): a minimum acknowledged while
// the faults went on, some retried across a fault, and no more unacknowledged operations
// than one in flight per client and fault; each fault comes after some writes were
// acknowledged since the last; the operations are checked key by key. A server that answered 409 to everything, or
// was down throughout, would otherwise pass.
// (tools/mutants lists the faults this test is meant to catch: a dropped replay flag fails
// "every replay is flagged".) The invariant seen failing: with the replay branch of
// api.claim_idempotency_key reverted (sql/functions/30_idempotency.sql: a completed key
// `return ('run', null, null)`, tools/mutants), operations acknowledged once were applied
// again by their retry across a kill (10 of them twice in the history) and every later
// replay added a movement.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "api/seeded_server.hpp"
#include "api/stock_writers.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

// Each fault comes after a random number of writes acknowledged since the last (not
// after a time): it lands on writes however fast or slow the machine runs them. The
// smallest numbers add up to StockWriters' minimum acknowledged during the faults (20).
bool writes_acknowledged(const StockWriters& writers, long count) {
  return writers.ledger().wait_acknowledged(count, WriteLedger::Clock::now(), std::chrono::seconds(60));
}

TEST(StockChaos, ServerKilledAndRestartedUnderIdempotentWrites) {
  SeededServer env;
  StockWriters chaos(env, "kill");
  constexpr int kKills = 8;
  chaos.run(kKills, [&] {
    std::mt19937 random(42);
    for (int kill = 0; kill < kKills; ++kill) {
      EXPECT_TRUE(writes_acknowledged(chaos, 3 + random() % 8)) << "before kill " << kill;
      env.kill_and_restart();
      chaos.set_port(env.port());
    }
  });
  std::printf("chaos kill: %d SIGKILLs of the server\n", kKills);
  chaos.check();
}

TEST(StockChaos, DatabaseRestartedUnderIdempotentWrites) {
  ThrowawayCluster cluster;
  SeededServer env(cluster.url());
  StockWriters chaos(env, "pgrestart");
  constexpr int kRestarts = 3;
  chaos.run(kRestarts, [&] {
    std::mt19937 random(7);
    for (int restart = 0; restart < kRestarts; ++restart) {
      EXPECT_TRUE(writes_acknowledged(chaos, 8 + random() % 10)) << "before restart " << restart;
      cluster.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(100 + random() % 400));
      cluster.start();
    }
  });
  std::printf("chaos pgrestart: %d PostgreSQL restarts\n", kRestarts);
  // The side connection died with the first restart.
  env.reconnect_sql();
  chaos.check();
}

}  // namespace
}  // namespace storeapi::testing
