// A store moved onto a pod that is a Patroni cluster and off it again, under keyed writes
// (docs/DEPLOY.md "Adding a pod", "Moving stores between pods"). Run by
// tests/ha/patroni_move_pgtest.sh, which starts the cluster (tests/ha/patroni_cluster.sh:
// etcd, two Patroni nodes on dist/patroni/patroni.yml, a leader and its synchronous
// standby), makes it ready to be a pod as DEPLOY's "Adding a pod" says (the runtime role
// and an empty database; the passwords in the password file of PGPASSFILE, none in a URL)
// and gives the pod's URL as an operator writes it (both nodes, target_session_attrs=
// read-write) in STOREAPI_TEST_PATRONI_POD_URL.
// Here: the directory and pod `main` on a ThrowawayCluster (its PostgreSQL inherits
// PGPASSFILE: the subscription of a move onto main signs in to the Patroni pod with it, as
// DEPLOY asks of a target's hosts), two storeapi nodes, `storeapi-admin pod add` of that
// URL, and idempotent writers through both nodes (api/stock_writers.hpp) while the store
// moves from main onto the Patroni pod and back off it. Checked:
//   - pod add says stores can be moved off the pod (the shipped wal_level: logical);
//   - each move succeeds with a write pause within 1 s (bench/RESULTS.md's bound for a
//     move; tens of ms measured), writes were acknowledged before, between and after the
//     moves and in flight from each fence to its lift (FenceWatcher), and every attempt
//     was answered 200 (a fenced write is held by the node, never refused);
//   - key by key, every acknowledged write exactly once in the stock history on main at
//     the end (it crossed both moves), nothing doubled, every key replays.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "admin/admin_cli.hpp"
#include "admin/database.hpp"
#include "api/seeded_server.hpp"
#include "api/stock_writers.hpp"
#include "fleet/fence_watcher.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kSecret = "seeded-server-test-secret-of-32-bytes";  // SeededServer's: cursors work on both nodes
// Writes acknowledged before each move and after the last: the moves run under the writes.
constexpr long kAcknowledgedAroundEachMove = 20;
// The write pause bench/RESULTS.md states for a move (measured: tens of ms).
constexpr double kWritePauseBound = 1.0;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

TEST(PatroniPod, AStoreMovesOntoItAndOffItUnderWritesWithNoAcknowledgedWriteLostOrDoubled) {
  const char* given = std::getenv("STOREAPI_TEST_PATRONI_POD_URL");
  ASSERT_NE(given, nullptr) << "run by tests/ha/patroni_move_pgtest.sh, which starts the Patroni cluster";
  const std::string patroni = given;
  ThrowawayCluster main_cluster;
  SeededServer env(main_cluster.url());
  auto node_b = start_api_server(api_url(env.database()), kSecret);
  const std::string directory = env.database().url();
  const std::string store = env.store().id;

  // The mover: the clusters' superuser, on both pods (the script gave it the same name and
  // a password on the Patroni pod).
  ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
  CliResult added = run_admin({"pod", "add", "--name", "ha", "--url", patroni}, directory);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  simdjson::dom::parser parser;
  EXPECT_TRUE(parser.parse(added.out)["can_be_moved_from"].get_bool().value()) << added.out;
  // Set before the first move: the stock moves with the store.
  StockWriters writers(env, "patroni-move", {env.port(), node_b->port()});
  const std::string on_main = directory, on_patroni = admin::as_user(patroni, cluster_superuser());

  // Each move's fence window, seen from the source's fence to the target's lift.
  struct Window {
    std::string to;
    Clock::time_point fenced, lifted;
  };
  std::vector<Window> windows;
  // Moves the store to pod `to` once writes flow, watching its fence from `source` to `target`.
  auto move = [&](const std::string& to, const std::string& source, const std::string& target) {
    EXPECT_TRUE(writers.ledger().wait_acknowledged(kAcknowledgedAroundEachMove, Clock::now(), 60s))
        << "no writes before the move to " << to;
    FenceWatcher watcher(source, target, store);
    CliResult moved = run_admin({"store", "move", "--store", store, "--to", to}, directory);
    watcher.stop();
    ASSERT_EQ(moved.exit_code, 0) << moved.err;
    simdjson::dom::parser report_parser;
    auto report = report_parser.parse(moved.out);
    EXPECT_EQ(report["confirmations_missing"].get_int64().value(), 0) << moved.out;
    const double pause = report["write_pause_seconds"].get_double().value();
    ASSERT_TRUE(watcher.fenced() && watcher.lifted()) << "the fence or its lift of the move to " << to << " was not seen";
    windows.push_back({to, *watcher.fenced(), *watcher.lifted()});
    std::cout << "move to " << to << ": write pause " << pause << " s (seen "
              << ms(*watcher.lifted() - *watcher.fenced()) << " ms); " << moved.out;
    EXPECT_LE(pause, kWritePauseBound) << "the write pause of the move to " << to;
  };
  writers.run([&] {
    move("ha", on_main, on_patroni);
    move("main", on_patroni, on_main);
    EXPECT_TRUE(writers.ledger().wait_acknowledged(kAcknowledgedAroundEachMove, Clock::now(), 60s))
        << "no writes after the moves";
  });
  EXPECT_EQ(windows.size(), 2u);
  // Counted once every operation has ended: a write held across the fence is acknowledged
  // after the lift, maybe after the move command returned.
  for (const Window& w : windows) {
    const long crossed = writers.ledger().acknowledged_across(w.fenced, w.lifted);
    std::cout << "move to " << w.to << ": " << crossed << " acknowledged writes in flight from fence to lift\n";
    EXPECT_GE(crossed, 1) << "no acknowledged write was in flight between the fence and the lift of the move to " << w.to;
  }
  EXPECT_EQ(env.value("select pod from stores where id = $1", store), "main");
  for (const auto& [status, attempts] : writers.statuses())
    EXPECT_EQ(status, 200) << attempts << " attempts answered " << status;
  writers.check();
}

}  // namespace
}  // namespace storeapi::testing
