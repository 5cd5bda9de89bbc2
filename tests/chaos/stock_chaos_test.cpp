// Concurrent idempotent stock adjustments while the server is killed (SIGKILL) and
// restarted, and while PostgreSQL restarts under a running server. Clients retry each
// operation with the same Idempotency-Key until they get a definitive answer, as the API
// asks clients to. Checked only through what is observable from outside (the HTTP API
// and the stock history), so the test holds whatever the write path looks like inside:
//   - every acknowledged operation is in the stock history exactly once (0 lost, 0 doubled);
//   - an operation never acknowledged is there at most once (it may have been applied
//     before the crash cut its answer off);
//   - the final stock is the start plus exactly the operations in the history;
//   - afterwards, every acknowledged key answers again as a replay, flagged
//     Idempotent-Replayed, without a new movement.
// A key whose first attempt died mid-flight may be answered 409 idempotency_in_progress
// until its reservation expires (60 s); the client gives such a key up after a few
// seconds and counts it as unacknowledged rather than wait that long. Only a fault can
// leave a key so: at most one per client in flight at each fault, so more unacknowledged
// operations than clients x faults is a failure.
// And something must have happened: a minimum of operations acknowledged while the faults
// were being injected, some of them retried across a fault. A server that refused every
// write (409 to everything) or was down throughout would otherwise pass.
// (tools/mutants lists the faults this test is meant to catch: a dropped replay flag
// fails "every replay is flagged".)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/seeded_server.hpp"
#include "support/http_client.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 4;
// Each client goes on until the faults are over, and makes at least this many operations
// (at most kMaxOperationsPerClient, a bound on the test's length however fast writes are).
constexpr int kOperationsPerClient = 40;
constexpr int kMaxOperationsPerClient = 5000;
// How long one operation may take, retries included, before the test calls it a hang.
constexpr auto kOperationBound = 60s;
// How long a key may stay "in progress" before the client gives it up.
constexpr auto kInProgressPatience = 3s;
// At least this many operations acknowledged while the faults were being injected.
constexpr long long kMinAcknowledgedDuringFaults = 20;

struct Operation {
  std::string key;   // Idempotency-Key, also the movement's note
  int delta = 0;
  bool acknowledged = false;
  bool replay_flagged = false;  // the acknowledging answer said Idempotent-Replayed: true
  bool during_faults = false;   // acknowledged before the faults were over
  int attempts = 0;
};

class StockChaos {
 public:
  StockChaos(SeededServer& env, std::string run) : env_(env), run_(std::move(run)), port_(env.port()) {
    variant_ = env_.live_variant(0);
    env_.exec("update variants set stock = 1000 where id = $1", variant_.variant);
    initial_stock_ = 1000;
  }

  std::string path() const { return variant_.path() + "/stock"; }
  void set_port(std::uint16_t port) { port_ = port; }

  // Runs the clients while `fault` injects its faults, and until each client made at least
  // kOperationsPerClient operations. The faults run on the calling thread: a server
  // started from a thread that then ends would die with it (PR_SET_PDEATHSIG follows the
  // forking thread, not the process).
  void run(int faults, const std::function<void()>& fault) {
    faults_ = faults;
    std::atomic<bool> faults_over{false};
    std::vector<std::vector<Operation>> per_client(kClients);
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c)
      clients.emplace_back([this, c, &faults_over, &mine = per_client[static_cast<std::size_t>(c)]] {
        std::mt19937 random(static_cast<unsigned>(c) * 7919u + 17u);
        for (int i = 0; i < kMaxOperationsPerClient && (i < kOperationsPerClient || !faults_over); ++i) {
          Operation& op = mine.emplace_back();
          op.key = run_ + "-" + std::to_string(c) + "-" + std::to_string(i);
          op.delta = static_cast<int>(random() % 5) + 1;
          perform(op);
          op.during_faults = op.acknowledged && !faults_over;
        }
      });
    fault();
    faults_over = true;
    for (auto& t : clients) t.join();
    for (auto& mine : per_client) ops_.insert(ops_.end(), mine.begin(), mine.end());
  }

  // The invariants of the file's head comment.
  void check() {
    long long applied_delta = 0, applied = 0, acknowledged = 0, unacknowledged_applied = 0, replays = 0;
    long long during_faults = 0, retried = 0;
    for (const Operation& op : ops_) {
      during_faults += op.during_faults;
      retried += op.acknowledged && op.attempts > 1;
      const long long rows = env_.count("select count(*) from stock_movements where variant_id = $1 and note = $2",
                                        variant_.variant, op.key);
      if (op.acknowledged) {
        ++acknowledged;
        EXPECT_EQ(rows, 1) << op.key << ": acknowledged, so exactly once in the history";
      } else {
        EXPECT_LE(rows, 1) << op.key << ": never applied twice";
        unacknowledged_applied += rows;
      }
      if (op.replay_flagged) ++replays;
      applied += rows;
      applied_delta += rows * op.delta;
    }
    EXPECT_GE(during_faults, kMinAcknowledgedDuringFaults) << "operations acknowledged while the faults went on";
    EXPECT_GE(retried, 1) << "no acknowledged operation was retried across a fault: the faults missed the writes";
    EXPECT_LE(static_cast<long long>(ops_.size()) - acknowledged, static_cast<long long>(kClients) * faults_)
        << "unacknowledged beyond one in-flight operation per client and fault";
    EXPECT_EQ(env_.count("select count(*) from stock_movements where variant_id = $1 and note like $2",
                         variant_.variant, run_ + "-%"),
              applied)
        << "no movement that no operation asked for";
    EXPECT_EQ(env_.count("select stock from variants where id = $1", variant_.variant), initial_stock_ + applied_delta);

    // Every acknowledged key, asked again, is a flagged replay and changes nothing.
    long long flagged = 0;
    for (const Operation& op : ops_) {
      if (!op.acknowledged) continue;
      HttpResponse r = post(op, port_);
      EXPECT_EQ(r.status, 200) << op.key << ": " << r.body;
      if (r.header("Idempotent-Replayed") == std::optional<std::string>("true")) ++flagged;
    }
    EXPECT_EQ(flagged, acknowledged) << "every replay is flagged";
    EXPECT_EQ(env_.count("select count(*) from stock_movements where variant_id = $1 and note like $2",
                         variant_.variant, run_ + "-%"),
              applied)
        << "replays add nothing";
    std::printf("chaos %s: %zu operations, %lld acknowledged (%lld while the faults went on, %lld retried across "
                "one, %lld answered as replays), %zu unacknowledged (%lld of them applied once)\n",
                run_.c_str(), ops_.size(), acknowledged, during_faults, retried, replays,
                ops_.size() - static_cast<std::size_t>(acknowledged), unacknowledged_applied);
  }

 private:
  HttpResponse post(const Operation& op, std::uint16_t port) {
    HttpClient client(port, 5s);
    const std::string body =
        R"({"mode":"adjust","quantity":)" + std::to_string(op.delta) + R"(,"note":")" + op.key + R"("})";
    return client.request_json(
        "POST", path(), {{"Authorization", "Bearer " + env_.key().key}, {"Idempotency-Key", op.key}}, body);
  }

  // Retries `op` with its key until a definitive answer, or gives it up as
  // unacknowledged when its key stays in progress.
  void perform(Operation& op) {
    const auto bound = Clock::now() + kOperationBound;
    std::optional<Clock::time_point> in_progress_since;
    while (Clock::now() < bound) {
      ++op.attempts;
      try {
        HttpResponse r = post(op, port_.load());
        if (r.status == 200) {
          op.acknowledged = true;
          op.replay_flagged = r.header("Idempotent-Replayed") == std::optional<std::string>("true");
          return;
        }
        if (r.status == 409 && r.body.find("idempotency_in_progress") != std::string::npos) {
          if (!in_progress_since) in_progress_since = Clock::now();
          if (Clock::now() - *in_progress_since > kInProgressPatience) return;  // unacknowledged
        } else if (r.status < 500) {
          ADD_FAILURE() << op.key << ": unexpected " << r.status << " " << r.body;
          return;
        }
      } catch (const std::exception&) {
        // The server is down or was killed mid-answer: the same key again.
      }
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << op.key << ": no definitive answer within the bound";
  }

  SeededServer& env_;
  std::string run_;
  std::atomic<std::uint16_t> port_;
  VariantRef variant_;
  long long initial_stock_ = 0;
  int faults_ = 0;
  std::vector<Operation> ops_;
};

TEST(StockChaos, ServerKilledAndRestartedUnderIdempotentWrites) {
  SeededServer env;
  StockChaos chaos(env, "kill");
  constexpr int kKills = 8;
  chaos.run(kKills, [&] {
    std::mt19937 random(42);
    for (int kill = 0; kill < kKills; ++kill) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + random() % 600));
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
  StockChaos chaos(env, "pgrestart");
  constexpr int kRestarts = 3;
  chaos.run(kRestarts, [&] {
    std::mt19937 random(7);
    for (int restart = 0; restart < kRestarts; ++restart) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
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
