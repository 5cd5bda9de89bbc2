// The server and a database that goes away (docs/DESIGN.md §1: "while the DB is unreachable
// requests get 503 quickly, and the server recovers without restart"; docs/PITFALLS.md: survive a
// database restart, no leaked connections). These tests stop and start PostgreSQL, so they
// run on a cluster of their own (ThrowawayCluster), never the shared test cluster.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "common/crypto.hpp"
#include "auth/auth_fixture.hpp"
#include "support/metrics_scrape.hpp"
#include "support/throwaway_cluster.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// docs/DESIGN.md's "503 quickly", as an outcome rather than a latency: the 503 comes
// from the pool refusing at once, not from a request that waited for a connection to
// come back, which takes the pool's connect timeout (5 s here, SetUp). A fifth of it: far above any
// scheduling delay of a loaded 2-CPU machine (a tight bound failed there), far below a
// wait. Seen to fail with the first attempt waiting too (`attempt > 0 &&` removed from
// Pool::run_attempts's wait loop): the first 503 after 5 s.
constexpr auto kUnavailableWithin = 1s;
// Answers the load gets from the stopped database before its answers are looked at.
constexpr std::size_t kAnswersWhileStopped = 40;

std::string random_key() { return "sk_live_" + crypto::random_alnum(32); }

class DatabaseOutage : public AuthTest {
 protected:
  DatabaseOutage() : AuthTest(postgres().url()) {}

  static void SetUpTestSuite() { postgres_ = new ThrowawayCluster(); }
  static void TearDownTestSuite() {
    delete postgres_;
    postgres_ = nullptr;
  }
  static ThrowawayCluster& postgres() {
    if (!postgres_) throw std::runtime_error("no PostgreSQL of this suite: see the set-up failure above");
    return *postgres_;
  }

  // A connect deadline far above kUnavailableWithin, so that a unit waiting for a
  // connection to come back (which only a retry may do) shows as a late 503.
  void SetUp() override { start_server(2, 2, {{"STOREAPI_DB_CONNECT_TIMEOUT_MS", "5000"}}); }

  // Every test leaves the cluster running for the next one (and for dropping its database).
  void TearDown() override {
    postgres().thaw();
    if (!postgres().running()) postgres().start();
  }

  // Whether every one of `n` new connections gets `status` for GET `target` with `headers`
  // (spread over both cores, which learn about the database independently).
  bool all_answer(const std::string& target, const Headers& headers, int status, int n = 8) {
    for (int i = 0; i < n; ++i)
      if (get(target, headers).status != status) return false;
    return true;
  }

  // storeapi_invalidations_listening: whether revocations reach the caches at once.
  double invalidations_listening() {
    return metric_value(scrape_metrics(server().metrics_port()), "storeapi_invalidations_listening");
  }

  static inline ThrowawayCluster* postgres_ = nullptr;
};

struct Timed {
  Clock::time_point sent;
  Clock::duration took;
  int status;
};

// Clients that each send GET /v1/store with a fresh unknown key (so every request needs
// the key lookup, i.e. the database) back to back until stopped.
class ColdKeyLoad {
 public:
  ColdKeyLoad(std::uint16_t port, int clients) {
    for (int i = 0; i < clients; ++i) {
      threads_.emplace_back([this, port] {
        HttpClient c(port, kReplyTimeout);
        while (!stop_) {
          auto sent = Clock::now();
          HttpResponse r = c.get("/v1/store", bearer(random_key()));
          std::lock_guard lock(mutex_);
          results_.push_back({sent, Clock::now() - sent, r.status});
        }
      });
    }
  }
  ~ColdKeyLoad() { finish(); }

  // Requests sent at or after `since` and answered (or failed) so far.
  std::size_t answered_since(Clock::time_point since) {
    std::lock_guard lock(mutex_);
    return std::count_if(results_.begin(), results_.end(), [&](const Timed& t) { return t.sent >= since; });
  }

  std::vector<Timed> finish() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
    std::lock_guard lock(mutex_);
    return results_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<Timed> results_;
  std::vector<std::thread> threads_;
};

TEST_F(DatabaseOutage, StoppedUnderLoadAnswers503QuicklyAndRecoversWithoutRestart) {
  auto store = db_.create_store();
  auto warm = create_key(store.id);
  auto cold = create_key(store.id);
  auto connections = warm_on_every_core(warm.key, 16);

  ColdKeyLoad load(server().port(), 4);
  ASSERT_TRUE(eventually([&] { return get("/v1/store", bearer(random_key())).status == 401; }));
  postgres().stop();
  const auto stopped = Clock::now();

  // A key no core has seen needs the database: 503 at once, with Retry-After.
  HttpResponse first = get("/v1/store", bearer(cold.key));
  const auto first_took = Clock::now() - stopped;
  EXPECT_EQ(first.status, 503) << first.body;
  expect_error(first, 503, "api_error", "service_unavailable");
  EXPECT_GE(header_number(first, "Retry-After"), 1);
  EXPECT_FALSE(first.has_header("RateLimit-Limit"));
  EXPECT_LE(first_took, kUnavailableWithin) << std::chrono::duration<double, std::milli>(first_took).count() << " ms";

  // The load runs against the stopped database: some answers to requests sent after it.
  EXPECT_TRUE(eventually([&] { return load.answered_since(stopped) >= kAnswersWhileStopped; }))
      << load.answered_since(stopped);
  std::vector<Clock::duration> took;
  for (const Timed& t : load.finish()) {
    if (t.sent < stopped) continue;  // in flight when it stopped: any answer, but an answer
    EXPECT_EQ(t.status, 503);
    took.push_back(t.took);
  }
  ASSERT_GT(took.size(), 10u);
  // None waited for a connection.
  EXPECT_LE(*std::max_element(took.begin(), took.end()), kUnavailableWithin);

  // A warm key needs no database: GET /v1/store is still served from the cache.
  for (auto& c : connections) EXPECT_EQ(c.get("/v1/store", bearer(warm.key)).status, 200);
  // Readiness follows the database on every core.
  EXPECT_TRUE(eventually([&] { return all_answer("/readyz", {}, 503); }));
  expect_error(get("/readyz"), 503, "api_error", "service_unavailable");
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_TRUE(eventually([&] { return invalidations_listening() == 0; }));

  postgres().start();
  EXPECT_TRUE(eventually([&] { return all_answer("/v1/store", bearer(cold.key), 200); })) << server().stderr_text();
  EXPECT_TRUE(eventually([&] { return invalidations_listening() == 1; }));
  // Each core reconnects on its own backoff (up to 2 s).
  EXPECT_TRUE(eventually([&] { return all_answer("/readyz", {}, 200); }));
  EXPECT_TRUE(all_answer("/v1/store", bearer(random_key()), 401));
  EXPECT_TRUE(wait_connected()) << server_connections();
}

TEST_F(DatabaseOutage, NoConnectionLeaksAfterAHundredReconnects) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  const std::size_t fds_before = server().open_fds();
  // Terminates the server's connections and waits until their backends have exited;
  // returns how many. A backend still exiting stays in pg_stat_activity, where
  // wait_connected() would count it as one of the server's new connections (on a loaded
  // machine it stays there long enough). pg_terminate_backend(pid, timeout) would wait
  // too, but it looks every 100 ms: a hundred rounds of that is minutes.
  auto terminate = [&] {
    std::string pids = query_value(
        "select coalesce(string_agg(pid::text, ',') filter (where pg_terminate_backend(pid)), '')"
        " from pg_stat_activity where application_name = 'storeapi' and datname = current_database()");
    EXPECT_TRUE(eventually([&] {
      return query_value("select count(*) from pg_stat_activity where pid = any('{" + pids + "}'::int[])") == "0";
    })) << "backends " << pids << " still there";
    return pids.empty() ? 0 : std::count(pids.begin(), pids.end(), ',') + 1;
  };
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(terminate(), 5) << "round " << i;
    ASSERT_TRUE(wait_connected()) << "round " << i << ": " << server_connections() << " connections";
  }
  // Terminations landing while connections are still being set up.
  for (int i = 0; i < 20; ++i) {
    terminate();
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(wait_connected()) << server_connections() << " connections";
  // Settled (threads × conns_per_thread + 1 listener), and still so once every core has
  // used its connections again.
  EXPECT_EQ(server_connections(), 5);
  EXPECT_TRUE(all_answer("/v1/store", bearer(key.key), 200));
  EXPECT_TRUE(all_answer("/v1/store", bearer(random_key()), 401));
  EXPECT_EQ(server_connections(), 5);
  // The LISTEN connection came back too: a revocation still applies at once.
  admin({"key", "revoke", "--key", key.id});
  EXPECT_TRUE(all_answer("/v1/store", bearer(key.key), 401));
  // The server closes its side of the test's connections when it reads their end.
  EXPECT_TRUE(eventually([&] { return server().open_fds() == fds_before; }, 5s))
      << server().open_fds() << " open descriptors, " << fds_before << " before";
}

// A database that keeps its connections open but never answers (frozen, or behind a
// network partition) must not hold requests for an unbounded time either: a statement
// gets STOREAPI_DB_TIMEOUT_MS from the database itself, and the server gives up on a
// connection whose answer is overdue by a second more.
TEST_F(DatabaseOutage, FrozenDatabaseAnswers503OnceTheTimeoutPassed) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  ASSERT_NO_FATAL_FAILURE(start_server(2, 2, {{"STOREAPI_DB_TIMEOUT_MS", "1000"}}));

  postgres().freeze();
  const auto frozen = Clock::now();
  HttpResponse r = get("/v1/store", bearer(key.key));
  const auto took = Clock::now() - frozen;
  expect_error(r, 503, "api_error", "service_unavailable");
  EXPECT_GE(took, 1s);  // not before the database had its chance
  EXPECT_LE(took, 10s) << std::chrono::duration<double>(took).count() << " s";
  // Each pooled connection gives up when a request finds it unanswered; once all have,
  // the answer comes at once (they are reconnecting), and readiness says so.
  EXPECT_TRUE(eventually([&] {
    auto sent = Clock::now();
    return all_answer("/v1/store", bearer(key.key), 503) && Clock::now() - sent < 8 * kUnavailableWithin;
  }));
  EXPECT_TRUE(all_answer("/readyz", {}, 503));

  postgres().thaw();
  EXPECT_TRUE(eventually([&] { return all_answer("/v1/store", bearer(key.key), 200); })) << server().stderr_text();
  // Each core reconnects on its own backoff (up to 2 s).
  EXPECT_TRUE(eventually([&] { return all_answer("/readyz", {}, 200); }));
}

class DatabaseDownAtStart : public DatabaseOutage {
 protected:
  void SetUp() override {}  // each test starts the server itself
};

TEST_F(DatabaseDownAtStart, StartsAnswers503AndServesOnceTheDatabaseIsUp) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  postgres().stop();

  launch_server();
  EXPECT_TRUE(all_answer("/readyz", {}, 503));
  EXPECT_TRUE(all_answer("/healthz", {}, 200));
  HttpResponse r = get("/v1/store", bearer(key.key));
  expect_error(r, 503, "api_error", "service_unavailable");
  EXPECT_GE(header_number(r, "Retry-After"), 1);
  // Requests that fail before any lookup need no database.
  expect_error(get("/v1/store"), 401, "authentication_error", "missing_api_key");

  postgres().start();
  EXPECT_TRUE(eventually([&] { return all_answer("/v1/store", bearer(key.key), 200); })) << server_->stderr_text();
  // Each core reconnects on its own backoff (up to 2 s).
  EXPECT_TRUE(eventually([&] { return all_answer("/readyz", {}, 200); }));
  EXPECT_TRUE(wait_connected()) << server_connections();
}

}  // namespace
}  // namespace storeapi::testing
