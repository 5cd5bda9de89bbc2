// A store moved onto a pod that is a Patroni cluster and off it again, under keyed writes
// (docs/DEPLOY.md "Adding a pod", "Moving stores between pods"). Run by
// tests/ha/patroni_move_pgtest.sh, which starts the cluster (tests/ha/patroni_pair.sh:
// etcd, two Patroni nodes on dist/patroni/patroni.yml, a leader and its synchronous
// standby), makes it ready to be a pod as DEPLOY's "Adding a pod" says (the runtime role
// and an empty database; the passwords in the password file of PGPASSFILE, none in a URL)
// and gives the pod's URL as an operator writes it (both nodes, target_session_attrs=
// read-write) in STOREAPI_TEST_PATRONI_POD_URL (and a second pod's, on another database of
// the same cluster, in STOREAPI_TEST_PATRONI_FAILOVER_POD_URL), with each node's data
// directory and REST port (STOREAPI_TEST_PATRONI_DATA_DIRS, _REST_PORTS: "1st,2nd").
// Here: the directory and pod `main` on a ThrowawayCluster (its PostgreSQL inherits
// PGPASSFILE: the subscription of a move onto main signs in to the Patroni pod with it, as
// DEPLOY asks of a target's hosts), two storeapi nodes, `storeapi-admin pod add` of that
// URL, and idempotent writers through both nodes (api/stock_writers.hpp) while the store
// moves from main onto the Patroni pod and back off it. Checked:
//   - pod add says stores can be moved off the pod (the shipped wal_level: logical);
//   - each move succeeds with a write pause within 1 s (bench/RESULTS.md's bound for a
//     move; asserted with a margin for load, kWritePauseBound), writes were acknowledged before, between and after the
//     moves and in flight from each fence to its lift (FenceWatcher), and every attempt
//     was answered 200 (a fenced write is held by the node, never refused);
//   - key by key, every acknowledged write exactly once in the stock history on main at
//     the end (it crossed both moves), nothing doubled, every key replays.
// And a move off the Patroni pod while Patroni fails over (the leader's PostgreSQL killed
// during the copy): as docs/DEPLOY.md says, the move fails before its flip (the new
// leader lacks the move's slot) and leaves the store where it was, served by the new
// leader; run again, it moves the store. Key by key as above, across the failover and the
// move; the clients saw 200, 503 or 409 (a retry whose first attempt was cut off), or no
// answer, never a 500.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <pqxx/pqxx>
#include <simdjson.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "admin/admin_cli.hpp"
#include "admin/base/database.hpp"
#include "api/seeded_server.hpp"
#include "api/stock_writers.hpp"
#include "fleet/fence_watcher.hpp"
#include "support/poll.hpp"
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
// The write pause bench/RESULTS.md states for a move (1 s), plus a margin for a loaded
// machine: the pause ends when the target's apply worker reports the fence's commit
// flushed, which its asynchronous commit lets it report only at its next wake-up, up to
// a second later on a source the fence has quieted (measured 0.51-0.90 s here under load).
constexpr double kWritePauseBound = 1.0 + 0.5;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string setting(const char* name) {
  const char* given = std::getenv(name);
  if (!given) throw std::runtime_error(std::string(name) + " is unset: run by tests/ha/patroni_move_pgtest.sh");
  return given;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

std::string value_on(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::nontransaction work(conn);
  auto field = work.exec1(sql)[0];
  return field.is_null() ? "" : field.c_str();
}

// The directory and pod `main` on a ThrowawayCluster with two API nodes, and the Patroni
// pod of `pod_url` added as `ha`. The mover is the clusters' superuser, on both pods (the
// script gave it the same name and a password on the Patroni pod).
struct DirectoryAndPatroniPod {
  explicit DirectoryAndPatroniPod(std::string pod_url) : patroni(std::move(pod_url)) {
    ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
    added = run_admin({"pod", "add", "--name", "ha", "--url", patroni}, directory);
  }
  std::string patroni;
  ThrowawayCluster main_cluster;
  SeededServer env{main_cluster.url()};
  std::unique_ptr<ServerProcess> node_b = start_api_server(api_url(env.database()), kSecret);
  std::string directory = env.database().url();
  std::string store = env.store().id;
  CliResult added;
};

TEST(PatroniPod, AStoreMovesOntoItAndOffItUnderWritesWithNoAcknowledgedWriteLostOrDoubled) {
  DirectoryAndPatroniPod pods(setting("STOREAPI_TEST_PATRONI_POD_URL"));
  auto& [patroni, main_cluster, env, node_b, directory, store, added] = pods;
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
    ASSERT_TRUE(watcher.fenced() && watcher.lifted())
        << "the fence or its lift of the move to " << to << " was not seen " << watcher.error();
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

// A server log's ERROR and FATAL lines, each with the DETAIL, CONTEXT or STATEMENT lines after it.
std::string errors_in(const std::string& log) {
  std::istringstream lines(log);
  std::string line, out;
  bool keep = false;
  while (std::getline(lines, line)) {
    if (line.find("ERROR:") != std::string::npos || line.find("FATAL:") != std::string::npos)
      keep = true;
    else if (line.find("DETAIL:") == std::string::npos && line.find("CONTEXT:") == std::string::npos &&
             line.find("STATEMENT:") == std::string::npos)
      keep = false;
    if (keep) out += line + "\n";
  }
  return out;
}

TEST(PatroniPod, AMoveOffItCutByAFailoverLeavesTheStoreWhereItWasAndRunsAgain) {
  const std::vector<std::string> data_dirs = split(setting("STOREAPI_TEST_PATRONI_DATA_DIRS"));
  const std::vector<std::string> rest_ports = split(setting("STOREAPI_TEST_PATRONI_REST_PORTS"));
  ASSERT_EQ(data_dirs.size(), 2u);
  ASSERT_EQ(rest_ports.size(), 2u);
  auto is_leader = [&](std::size_t node) {
    return std::system(("curl -sf -o /dev/null http://127.0.0.1:" + rest_ports[node] + "/primary").c_str()) == 0;
  };
  DirectoryAndPatroniPod pods(setting("STOREAPI_TEST_PATRONI_FAILOVER_POD_URL"));
  auto& [patroni, main_cluster, env, node_b, directory, store, added] = pods;
  ASSERT_EQ(added.exit_code, 0) << added.err;
  StockWriters writers(env, "failover-move", {env.port(), node_b->port()});
  CliResult onto = run_admin({"store", "move", "--store", store, "--to", "ha"}, directory);
  ASSERT_EQ(onto.exit_code, 0) << onto.err;
  const std::string on_main = directory, on_patroni = admin::as_user(patroni, cluster_superuser());

  CliResult again;
  std::optional<int> cut;  // the cut move's exit status
  std::optional<Clock::time_point> killed, promoted, synchronous;
  // The fault's own failures end it as a test failure: an exception would leave the
  // writers' threads running.
  writers.run(1, [&] { try {
    EXPECT_TRUE(writers.ledger().wait_acknowledged(kAcknowledgedAroundEachMove, Clock::now(), 60s))
        << "no writes before the move";
    const std::size_t leader = is_leader(0) ? 0 : 1;
    const pid_t mover = start_admin({"store", "move", "--store", store, "--to", "main"}, directory);
    // The copy under way: the move's subscription on main, its slot on the leader.
    const bool copying = eventually([&] {
      return value_on(on_main, "select count(*) from pg_subscription where subname like 'storeapi_move_%'") == "1";
    }, 60s);
    if (copying) {
      killed = Clock::now();
      EXPECT_EQ(run_as_cluster_owner({"/usr/lib/postgresql/15/bin/pg_ctl", "-D", data_dirs[leader], "-m", "immediate",
                                      "stop"},
                                     main_cluster.socket_dir() + "/kill.log"),
                0);
      if (eventually([&] { return is_leader(1 - leader); }, 60s)) promoted = Clock::now();
    }
    // It ends by itself (a move that waits for a copy that can never end would hang).
    int status = 0;
    if (eventually([&] { return ::waitpid(mover, &status, WNOHANG) == mover; }, 60s))
      cut = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    else {
      ::kill(mover, SIGKILL);
      ::waitpid(mover, &status, 0);
    }
    ASSERT_TRUE(cut) << "the move cut by the failover did not end within 60 s";
    ASSERT_TRUE(copying) << "the move never subscribed";
    ASSERT_TRUE(promoted) << "Patroni promoted nobody";
    // Strict synchronous mode: commits wait until the old leader streams again.
    // (A new leader may refuse a session for a moment after its /primary says 200.)
    if (eventually([&] {
          try {
            return value_on(on_patroni, "select count(*) from pg_stat_replication where sync_state = 'sync'") == "1";
          } catch (const pqxx::broken_connection&) {
            return false;
          }
        }, 60s))
      synchronous = Clock::now();
    ASSERT_TRUE(synchronous) << "the old leader did not rejoin as a synchronous standby";
    EXPECT_TRUE(writers.ledger().wait_acknowledged(kAcknowledgedAroundEachMove, *synchronous, 60s))
        << "no writes on the new leader";
    again = run_admin({"store", "move", "--store", store, "--to", "main"}, directory);
    EXPECT_TRUE(writers.ledger().wait_acknowledged(kAcknowledgedAroundEachMove, Clock::now(), 60s))
        << "no writes after the move";
  } catch (const std::exception& e) { ADD_FAILURE() << e.what(); } });
  // The lambda's assertions return early with these unset: print what was seen.
  const auto since_kill = [&](const std::optional<Clock::time_point>& t) {
    return killed && t ? std::to_string(static_cast<long>(ms(*t - *killed))) + " ms" : std::string("not seen");
  };
  std::cout << "the move cut by the failover: exit " << cut.value_or(-1) << "; promoted " << since_kill(promoted)
            << " after the kill, synchronous again " << since_kill(synchronous) << "; run again: exit "
            << again.exit_code << " " << again.out << again.err;
  EXPECT_NE(cut, std::optional(0)) << "the move went through the failover";
  EXPECT_EQ(again.exit_code, 0) << again.err << "main's errors (the move's target):\n"
                                << errors_in(main_cluster.server_log());
  EXPECT_EQ(env.value("select pod from stores where id = $1", store), "main");
  for (const auto& [status, attempts] : writers.statuses())
    EXPECT_TRUE(status == 200 || status == 503 || status == 409 || status == 0) << attempts << " attempts answered " << status;
  writers.check();
}

}  // namespace
}  // namespace storeapi::testing
