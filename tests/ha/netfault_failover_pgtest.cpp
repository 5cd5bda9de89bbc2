// Failures a loopback cannot show, with the detection and failover bounds of
// docs/DEPLOY.md "High availability": PostgreSQL clusters on hosts of a network of the
// test's own (support/net_lab.hpp: namespaces, a bridge, veth links), the servers and the
// clients in the lab's hub.
//   - The primary's link is set down (its packets vanish: no reset, no refusal) under
//     idempotent writers on two nodes, on the multi-host URL; its synchronous standby is
//     promoted a second later. Writes are acknowledged before the cut and again within
//     kFailoverBound of the promotion, every acknowledged write is on the new primary
//     exactly once (StockWriters::check, key by key), and the clients saw only 200 or 503
//     with Retry-After. The figure is printed (bench/RESULTS.md records the spread).
//   - The primary is frozen (SIGSTOP) and thawed, no promotion: every answer meanwhile
//     comes within kDetectionBound (503 with Retry-After, never held to the statement
//     timeout, which is 10 s), /readyz turns 503 within it and 200 after the thaw.
//   - The same through HAProxy running dist/patroni/haproxy.cfg as shipped.
//   - Further cases below, each with its comment: an idle node (keepalives), an idle node
//     and a frozen database (pings), a standby, a pod's primary, Redis.
// Seen failing: with the pre-change connect (one deadline for the whole multi-host
// connect, restarting at the first host) no write is acknowledged after the promotion;
// with STOREAPI_DB_SILENCE_MS=0 and STOREAPI_TCP_USER_TIMEOUT_MS=0 the frozen primary's
// first answers come after the statement timeout + 1 s (11 s).
// Skipped, with the reason, only where network namespaces cannot be made (not root).
#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "api/seeded_server.hpp"
#include "api/stock_writers.hpp"
#include "ha/synchronous_pair.hpp"
#include "support/free_port.hpp"
#include "support/metrics_scrape.hpp"
#include "support/net_lab.hpp"
#include "support/poll.hpp"
#include "support/primary_check.hpp"
#include "support/redis_process.hpp"
#include "support/test_database.hpp"
#include "support/test_pod.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"
#include "support/server_process.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kSecret = "seeded-server-test-secret-of-32-bytes";  // SeededServer's: cursors work on both nodes

// docs/DEPLOY.md's bounds with the default settings (1 s per host to connect, 1 s of
// silence before the host is asked, 2 s TCP user timeout). The assertions add kLoadMargin:
// the test runs beside seven other engineers' builds on two cores, and a scheduling
// delay is not what it is after (a server that misses the bound misses it by seconds:
// 11 s, or never, before).
constexpr auto kFailoverBound = 2s;
constexpr auto kDetectionBound = 3s;
constexpr auto kLoadMargin = 1s;
// How long a vanished primary stays silent before its standby is promoted.
constexpr auto kSilentBeforePromotion = 1s;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string value_on(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::nontransaction work(conn);
  auto field = work.exec1(sql)[0];
  return field.is_null() ? "" : field.c_str();
}

// The test's own libpq connections (the side connection, the database's creation and
// removal) are blocking: without a connect timeout, one reaching for the vanished host
// would wait for the kernel's SYN retries (minutes). The server reads its URL only.
struct BlockingConnectTimeout {
  BlockingConnectTimeout() { ::setenv("PGCONNECT_TIMEOUT", "2", 1); }
  ~BlockingConnectTimeout() { ::unsetenv("PGCONNECT_TIMEOUT"); }
};

// The cases on hosts of a lab, skipped with the reason where it cannot be made.
class NetFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      lab = std::make_unique<NetLab>();
    } catch (const NetLab::Unavailable& e) {
      GTEST_SKIP() << "network namespaces cannot be made here: " << e.what();
    }
  }
  BlockingConnectTimeout blocking;
  std::unique_ptr<NetLab> lab;
};

// The primary's link cut under idempotent writers on two nodes reaching the pair through
// `url`, its standby promoted a second later: writes acknowledged before the cut and again
// within `bound` of the promotion, key by key exactly once, only 200 or 503 with
// Retry-After. `label` names the printed figure; `left_out` says when no new connection
// can reach the old primary any more (at once on the multi-host URL), which the writes go
// on until, so that every path is on the new primary when the writes are checked.
void primary_vanishes(NetLab& lab, const NetLab::Host& first, SynchronousPair& pair, const std::string& url,
                      const std::string& label, Clock::duration bound,
                      const std::function<bool()>& left_out = [] { return true; }) {
  SeededServer env(url);
  auto node_b = start_api_server(env.database().url(), kSecret);
  StockWriters writers(env, "vanish", {env.port(), node_b->port()});

  // The writers' movements as a cluster has them (the writers' own record is read after
  // the run only).
  auto movements_on = [&](const ThrowawayCluster& cluster) {
    try {
      return std::stol(value_on(cluster.url(env.database().name()),
                                "select count(*) from stock_movements where note like 'vanish-%'"));
    } catch (const std::exception&) {
      return -1L;
    }
  };
  const Clock::time_point started = Clock::now();
  Clock::time_point cut, promoted;
  Clock::duration left_out_after{};
  writers.run([&] {
    EXPECT_TRUE(eventually([&] { return movements_on(pair.primary) >= 5; }, 30s));
    cut = Clock::now();
    lab.cut(first);
    // The fault's shape, not a wait: the old primary stays silent this long before the
    // standby is promoted (what Patroni's detection takes, shortened), with writes in flight.
    std::this_thread::sleep_for(kSilentBeforePromotion);
    pair.standby.promote();
    promoted = Clock::now();
    const long at_promotion = movements_on(pair.standby);
    EXPECT_TRUE(eventually([&] { return movements_on(pair.standby) > at_promotion; }, 30s, 10ms));
    EXPECT_TRUE(eventually(left_out, 30s, 10ms));
    left_out_after = Clock::now() - cut;
    // Writes acknowledged on the new primary once the old one is left out.
    EXPECT_TRUE(writers.ledger().wait_acknowledged(10, Clock::now(), 30s));
  });

  const auto before = writers.ledger().first_acknowledged_after(started);
  ASSERT_TRUE(before.has_value());
  EXPECT_LT(started + *before, cut) << "no write acknowledged before the cut";
  const auto after = writers.ledger().first_acknowledged_after(promoted);
  ASSERT_TRUE(after.has_value()) << "no write acknowledged after the promotion";
  EXPECT_GT(writers.ledger().acknowledged_across(cut, promoted + *after), 0)
      << "no write in flight across the fault was acknowledged";
  const auto statuses = writers.statuses();
  for (const auto& [status, count] : statuses)
    EXPECT_TRUE(status == 200 || status == 503) << count << " answered " << status;
  auto answered = [&](int status) {
    const auto it = statuses.find(status);
    return it == statuses.end() ? 0L : it->second;
  };
  std::printf(
      "netfault %s: first write acknowledged %.0f ms after the promotion (%.0f ms after the cut); "
      "the old primary left out %.0f ms after the cut; answers: 200 %ld, 503 %ld\n",
      label.c_str(), ms(*after), ms(promoted + *after - cut), ms(left_out_after), answered(200), answered(503));
  EXPECT_LT(*after, bound + kLoadMargin);
  EXPECT_EQ(writers.unavailable_without_retry_after(), 0);

  // The side connection died with the old primary; through HAProxy a new one may still be
  // sent to it until its checks have failed.
  ASSERT_TRUE(eventually([&] {
    try {
      env.reconnect_sql();
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }));
  writers.check();
  // Its packets would otherwise hold a fast shutdown on the walsender's goodbye.
  pair.primary.kill();
}

TEST_F(NetFaults, PrimaryVanishesStandbyPromotedWritesBackWithinTheBound) {
  const NetLab::Host& first = lab->add_host();
  const NetLab::Host& second = lab->add_host();
  SynchronousPair pair({first.netns, first.address}, {second.netns, second.address});
  primary_vanishes(*lab, first, pair, multi_host_url(pair.primary, pair.standby), "failover", kFailoverBound);
}

// HAProxy running dist/patroni/haproxy.cfg as shipped (its address and servers put in),
// in the lab's hub, in front of two clusters: each host's check port answers as Patroni's
// REST API does (support/primary_check.hpp).
class ShippedHaproxy {
 public:
  ShippedHaproxy(const NetLab::Host& first, const ThrowawayCluster& pg1, const NetLab::Host& second,
                 const ThrowawayCluster& pg2)
      : port_(free_port()) {
    char dir[] = "/tmp/storeapi-haproxy-XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    std::ifstream shipped(std::getenv("STOREAPI_PATRONI_HAPROXY_CFG"));
    std::ofstream config(dir_ + "/haproxy.cfg");
    int replaced = 0;
    auto server = [&](const std::string& name, const NetLab::Host& host, const ThrowawayCluster& cluster,
                      std::string& line) {
      const std::string head = "    server " + name + " ";
      if (!line.starts_with(head)) return;
      const std::size_t address_end = line.find(' ', head.size());
      line = head + host.address + ":" + std::to_string(cluster.port()) + line.substr(address_end);
      ++replaced;
    };
    for (std::string line; std::getline(shipped, line);) {
      if (line == "    bind *:5000") {
        line = "    bind 127.0.0.1:" + std::to_string(port_);
        ++replaced;
      }
      server("pg1", first, pg1, line);
      server("pg2", second, pg2, line);
      config << line << "\n";
    }
    config.close();
    if (replaced != 3) throw std::runtime_error("dist/patroni/haproxy.cfg changed: cannot put the lab's addresses in");
    ProcessOptions options;
    options.binary = "/usr/sbin/haproxy";
    options.args = {"-db", "-f", dir_ + "/haproxy.cfg"};
    options.inherit_settings = false;
    options.wait_for_listening = false;
    process_ = std::make_unique<ServerProcess>(options);
  }
  ~ShippedHaproxy() {
    process_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  // What it reported (a server going down or up: "Server storeapi_primary/pg1 is DOWN").
  std::string log() const { return process_->stderr_text(); }
  // `cluster_url` with HAProxy's address in place of the cluster's.
  std::string url(const std::string& cluster_url, const NetLab::Host& host) const {
    std::string url = cluster_url;
    const std::size_t at = url.find("@" + host.address + ":") + 1;
    return url.replace(at, url.find('/', at) - at, "127.0.0.1:" + std::to_string(port_));
  }

 private:
  std::uint16_t port_;
  std::string dir_;
  std::unique_ptr<ServerProcess> process_;
};

// The same through HAProxy (docs/DEPLOY.md "High availability", dist/patroni/): the cut
// host's check goes unanswered, HAProxy marks it down after two checks and shuts its
// sessions (on-marked-down shutdown-sessions), the promoted standby's check passes within
// a check interval. Until HAProxy has taken the old primary out (2 × inter, each check
// timing out after 1 s: 3-4 s after the cut), half the connections it makes go to the
// vanished server: the server's connect deadline ends those, the others reach the new
// primary. Writes are back within kFailoverBound of the promotion, as on the multi-host
// URL. Seen slower with a URL of one host skipped between its offers after a timeout (one
// connect a second for the process): 2.5-2.7 s after the promotion (unit-db holds that
// rule). It passes without `on-marked-down shutdown-sessions` too: the server's silence
// check ends connections to the vanished server by itself.
TEST_F(NetFaults, ThroughHaproxyPrimaryVanishesStandbyPromotedWritesBackWithinTheBound) {
  const NetLab::Host& first = lab->add_host();
  const NetLab::Host& second = lab->add_host();
  SynchronousPair pair({first.netns, first.address}, {second.netns, second.address});
  PrimaryCheck first_check(first, 8008, pair.primary.url());
  PrimaryCheck second_check(second, 8008, pair.standby.url());
  ShippedHaproxy haproxy(first, pair.primary, second, pair.standby);
  const std::string url = haproxy.url(pair.primary.url(), first);
  // HAProxy counts a server up until its first check fails: the standby is out once
  // connections in a row (round robin) all reach the primary.
  ASSERT_TRUE(eventually([&] {
    try {
      for (int i = 0; i < 4; ++i)
        if (value_on(url, "select not pg_is_in_recovery()") != "t") return false;
      return true;
    } catch (const std::exception&) {
      return false;
    }
  })) << "HAProxy does not reach the primary alone";
  primary_vanishes(*lab, first, pair, url, "haproxy", kFailoverBound,
                   [&] { return haproxy.log().find("storeapi_primary/pg1 is DOWN") != std::string::npos; });
}

// /readyz's status on the server at `port` (0: no answer).
int readyz(std::uint16_t port) {
  try {
    return HttpClient(port, 5s).get("/readyz").status;
  } catch (const std::exception&) {
    return 0;
  }
}

// Every core of the server at `port` says `status`: a few answers in a row on new
// connections.
bool every_core_says(std::uint16_t port, int status) {
  for (int i = 0; i < 6; ++i)
    if (readyz(port) != status) return false;
  return true;
}

// One request's fate while a fault lasts.
struct Answer {
  Clock::time_point sent;
  Clock::duration took;
  int status;  // 0: no answer
  bool retry_after;
};

// Clients reading `path` on `port` as fast as they are answered (each on a new
// connection, so both cores of the server take some), until stop().
class Readers {
 public:
  Readers(std::uint16_t port, std::string path, Headers headers, int clients) {
    for (int i = 0; i < clients; ++i)
      threads_.emplace_back([this, port, path, headers] {
        while (!stop_) {
          Answer a{Clock::now(), {}, 0, false};
          try {
            HttpResponse r = HttpClient(port, 20s).get(path, headers);
            a.status = r.status;
            a.retry_after = r.header("Retry-After").has_value();
          } catch (const std::exception&) {
          }
          a.took = Clock::now() - a.sent;
          {
            std::lock_guard lock(mutex_);
            answers_.push_back(a);
          }
          std::this_thread::sleep_for(20ms);  // a steady load, not a flood of instant 503s
        }
      });
  }
  ~Readers() { stop(); }

  void stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  std::vector<Answer> answers() const {
    std::lock_guard lock(mutex_);
    return answers_;
  }
  // How many answers sent at or after `since` had `status`.
  long answered_since(Clock::time_point since, int status) const {
    std::lock_guard lock(mutex_);
    return std::count_if(answers_.begin(), answers_.end(),
                         [&](const Answer& a) { return a.sent >= since && a.status == status; });
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Answer> answers_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

TEST(Freeze, FrozenPrimaryAnswered503WithinTheBoundAndReadyzFollows) {
  ThrowawayCluster cluster;
  SeededServer env(cluster.url());
  const std::string product_path = "/v1/products/" + env.live_variant(0).product;
  const Headers bearer{{"Authorization", "Bearer " + env.key().key}};

  // Readers on both cores' connections: each core's pool has work in flight when the
  // database freezes (an idle connection has nothing to notice).
  Readers readers(env.port(), product_path, bearer, 4);

  const Clock::time_point started = Clock::now();
  EXPECT_TRUE(eventually([&] { return readers.answered_since(started, 200) > 0; }));
  const Clock::time_point frozen = Clock::now();
  cluster.freeze();
  const bool drained = eventually([&] { return readyz(env.port()) == 503; }, 15s, 10ms);
  const auto readyz_after = Clock::now() - frozen;
  // Long enough for every client to have been answered during the freeze (statement
  // timeout 10 s: held to it, a request would still be waiting when the thaw comes).
  std::this_thread::sleep_for(kDetectionBound + kLoadMargin + 1s);
  const Clock::time_point thawed = Clock::now();
  cluster.thaw();
  const bool back = eventually([&] { return readyz(env.port()) == 200; }, 30s, 10ms);
  const auto ready_again_after = Clock::now() - thawed;
  EXPECT_TRUE(eventually([&] { return readers.answered_since(thawed, 200) > 0; }));
  readers.stop();

  Clock::duration slowest{};
  long unavailable = 0, other = 0;
  for (const Answer& a : readers.answers()) {
    if (a.sent + a.took < frozen || a.sent > thawed) continue;
    slowest = std::max(slowest, a.took);
    if (a.status == 503) {
      ++unavailable;
      EXPECT_TRUE(a.retry_after) << "a 503 without Retry-After";
    } else if (a.status != 200) {
      ++other;
    }
  }
  std::printf(
      "netfault freeze: /readyz 503 %.0f ms after the freeze, 200 %.0f ms after the thaw; slowest answer "
      "meanwhile %.0f ms; 503 %ld, other %ld\n",
      ms(readyz_after), ms(ready_again_after), ms(slowest), unavailable, other);
  EXPECT_TRUE(drained) << "/readyz never turned 503";
  EXPECT_LT(readyz_after, kDetectionBound + kLoadMargin);
  EXPECT_TRUE(back) << "/readyz never turned 200 again";
  EXPECT_GT(unavailable, 0);
  EXPECT_EQ(other, 0);
  EXPECT_LT(slowest, kDetectionBound + kLoadMargin);
}

// With no request in flight nothing owes an answer: only the sockets' keepalives, ended
// by their TCP user timeout, notice that the database's host vanished, so that /readyz
// drains an idle node too. Seen failing with STOREAPI_TCP_USER_TIMEOUT_MS=0 (no keepalives):
// /readyz stays 200 for as long as the test waits.
TEST_F(NetFaults, IdleNodeNoticesAVanishedPrimaryThroughKeepalives) {
  const NetLab::Host& host = lab->add_host();
  ThrowawayCluster cluster(ThrowawayCluster::OnHost{host.netns, host.address});
  SeededServer env(cluster.url());
  ASSERT_TRUE(eventually([&] { return every_core_says(env.port(), 200); }));
  const Clock::time_point cut = Clock::now();
  lab->cut(host);
  const bool drained = eventually([&] { return every_core_says(env.port(), 503); }, 20s, 50ms);
  const auto took = Clock::now() - cut;
  std::printf("netfault idle: /readyz 503 on every core %.0f ms after the cut\n", ms(took));
  EXPECT_TRUE(drained);
  EXPECT_LT(took, kDetectionBound + kLoadMargin);
  lab->mend(host);
  EXPECT_TRUE(eventually([&] { return every_core_says(env.port(), 200); }, 30s));
}

// A frozen database behind a live kernel answers the keepalives: with no request in flight,
// only each connection's ping notices it (a lone Sync after half a silence bound of quiet,
// unanswered for a silence bound, its host then accepting no new connection within the
// connect deadline: 2.5 s at most with the defaults), so that /readyz, which a load
// balancer polls, drains an idle node. Seen failing without the ping: /readyz stays 200
// on every core for as long as the test waits.
TEST(Freeze, IdleNodeNoticesAFrozenDatabaseThroughItsPings) {
  ThrowawayCluster cluster;
  SeededServer env(cluster.url());
  ASSERT_TRUE(eventually([&] { return every_core_says(env.port(), 200); }));
  const Clock::time_point frozen = Clock::now();
  cluster.freeze();
  const bool drained = eventually([&] { return every_core_says(env.port(), 503); }, 20s, 50ms);
  const auto took = Clock::now() - frozen;
  cluster.thaw();
  std::printf("netfault idle freeze: /readyz 503 on every core %.0f ms after the freeze\n", ms(took));
  EXPECT_TRUE(drained);
  EXPECT_LT(took, kDetectionBound + kLoadMargin);
  EXPECT_TRUE(eventually([&] { return every_core_says(env.port(), 200); }, 30s));
}

// The stock of `variant` in a GET /v1/products/{id} body; -1 when it is not there.
long stock_in(const std::string& product_body, const std::string& variant) {
  const Json product(product_body);
  for (int i = 0; product.has("/variants/" + std::to_string(i)); ++i) {
    const std::string at = "/variants/" + std::to_string(i);
    if (product.get(at + "/id") == variant) return std::stol(product.get(at + "/stock"));
  }
  return -1;
}

// A hot standby (asynchronous) serving a node's reads vanishes: a read stuck on it is
// given up within the detection bound and answered by the primary, later reads go to the
// primary at once, and none shows a stock older than the write before it.
TEST_F(NetFaults, StandbyVanishesReadsMoveToThePrimaryWithoutAStaleRead) {
  const NetLab::Host& first = lab->add_host();
  const NetLab::Host& second = lab->add_host();
  ThrowawayCluster primary(ThrowawayCluster::OnHost{first.netns, first.address});
  ThrowawayCluster standby(ThrowawayCluster::StandbyOf{primary},
                           ThrowawayCluster::OnHost{second.netns, second.address});
  SeededServer env(primary.url());
  const std::string written = env.value("select pg_current_wal_insert_lsn()::text");
  ASSERT_TRUE(eventually(
      [&] { return value_on(standby.url(), "select pg_last_wal_replay_lsn() >= '" + written + "'::pg_lsn") == "t"; }));
  auto reader = start_api_server(
      api_url(env.database()), kSecret,
      {{"STOREAPI_REPLICA_URLS", admin::as_user(standby.url(env.database().name()), admin::kRuntimeRole)}});
  const VariantRef variant = env.live_variant(0);
  const Headers bearer{{"Authorization", "Bearer " + env.key().key}};
  auto reads_on = [&](const std::string& target) {
    return metric_value(scrape_metrics(reader->metrics_port()),
                        R"(storeapi_db_reads_total{target=")" + target + R"("})");
  };
  long quantity = 0;
  Clock::duration slowest_after_cut{};
  long stale = 0, failed = 0;
  std::optional<Clock::time_point> cut;
  // A write, and reads through the reader: a read finding the standby behind the write
  // goes to the primary, one finding it caught up to the standby.
  auto write = [&] {
    ++quantity;
    HttpResponse w = HttpClient(reader->port(), 20s)
                         .request_json("POST", variant.path() + "/stock", bearer,
                                       R"({"mode":"set","quantity":)" + std::to_string(quantity) + "}");
    EXPECT_EQ(w.status, 200) << w.body;
  };
  auto read = [&] {
    const auto sent = Clock::now();
    HttpResponse r = HttpClient(reader->port(), 20s).get("/v1/products/" + variant.product, bearer);
    const auto took = Clock::now() - sent;
    if (r.status != 200)
      ++failed;
    else if (stock_in(r.body, variant.variant) != quantity)
      ++stale;
    if (cut) slowest_after_cut = std::max(slowest_after_cut, took);
  };
  const double standby_before = reads_on("standby");
  write();
  ASSERT_TRUE(eventually([&] {
    read();
    return reads_on("standby") > standby_before;
  }));
  cut = Clock::now();
  lab->cut(second);
  const double primary_at_cut = reads_on("primary");
  // Long enough for the stuck read, the standby's loss and reads after it.
  while (Clock::now() - *cut < kDetectionBound + kLoadMargin + 2s) {
    write();
    read();
    read();
  }
  std::printf("netfault standby: slowest read after the cut %.0f ms; reads on the primary since %.0f\n",
              ms(slowest_after_cut), reads_on("primary") - primary_at_cut);
  EXPECT_EQ(stale, 0) << "reads showed a stock older than the write before them";
  EXPECT_EQ(failed, 0);
  EXPECT_LT(slowest_after_cut, kDetectionBound + kLoadMargin);
  EXPECT_GT(reads_on("primary"), primary_at_cut);
  lab->mend(second);
}

// Fleet mode's Redis vanishes (its host cut off, not its process killed): requests go on,
// each answered within the Redis timeout's reach, on the node's own limits; the node says
// when Redis went and when it is back.
TEST_F(NetFaults, RedisVanishesRequestsGoOnOnTheNodesOwnLimits) {
  const NetLab::Host& database = lab->add_host();
  const NetLab::Host& redis_host = lab->add_host();
  ThrowawayCluster cluster(ThrowawayCluster::OnHost{database.netns, database.address});
  RedisOptions redis_options;
  redis_options.netns = redis_host.netns;
  redis_options.address = redis_host.address;
  RedisProcess redis(redis_options);
  SeededServer env(cluster.url(), {{"STOREAPI_REDIS_URL", redis.url()}});
  const std::string product_path = "/v1/products/" + env.live_variant(0).product;
  const Headers bearer{{"Authorization", "Bearer " + env.key().key}};

  Readers readers(env.port(), product_path, bearer, 2);
  auto server_says = [&](const std::string& text) { return env.server_stderr().find(text) != std::string::npos; };
  const Clock::time_point started = Clock::now();
  EXPECT_TRUE(eventually([&] { return readers.answered_since(started, 200) > 0; }));
  const Clock::time_point cut = Clock::now();
  lab->cut(redis_host);
  EXPECT_TRUE(eventually([&] { return server_says("unreachable"); }, 15s));
  const auto noticed = Clock::now() - cut;
  // Requests answered on the node's own limits while Redis is away.
  const Clock::time_point outage_logged = cut + noticed;
  EXPECT_TRUE(eventually([&] { return readers.answered_since(outage_logged, 200) >= 20; }, 15s));
  const Clock::time_point mended = Clock::now();
  lab->mend(redis_host);
  EXPECT_TRUE(eventually([&] { return server_says("is back"); }, 30s)) << env.server_stderr();
  readers.stop();

  Clock::duration slowest{};
  long during = 0, not_ok = 0;
  for (const Answer& a : readers.answers()) {
    if (a.sent + a.took < cut || a.sent > mended) continue;
    ++during;
    slowest = std::max(slowest, a.took);
    not_ok += a.status != 200;
  }
  std::printf("netfault redis: outage logged %.0f ms after the cut; %ld answers meanwhile, slowest %.0f ms\n",
              ms(noticed), during, ms(slowest));
  EXPECT_GT(during, 0);
  EXPECT_EQ(not_ok, 0);
  EXPECT_LT(slowest, kDetectionBound + kLoadMargin);
}

// A pod's primary vanishes (docs/DECISIONS.md, "Pods"): the directory on one host, a
// second pod on another; with the second's host cut off, its store's requests are answered
// 503 with Retry-After within the detection bound, the directory's store's 200 throughout,
// and /readyz (the directory's health) stays 200.
TEST_F(NetFaults, APodsPrimaryVanishesOnlyItsStoresAnswer503) {
  const NetLab::Host& main_host = lab->add_host();
  const NetLab::Host& pod_host = lab->add_host();
  ThrowawayCluster main_cluster(ThrowawayCluster::OnHost{main_host.netns, main_host.address});
  ThrowawayCluster pod_cluster(ThrowawayCluster::OnHost{pod_host.netns, pod_host.address});
  TestDatabase directory(TestDatabase::Schema::migrated, main_cluster.url());
  TestPod second(directory, "second", pod_cluster.url());
  const TestStore home = directory.create_store();
  const TestKey home_key = directory.create_key(home.id, "full");
  const TestStore placed = directory.create_store();
  second.place(placed.id);
  const TestKey placed_key = directory.create_key(placed.id, "full");
  {
    // The loop below asks as fast as it is answered: no rate limit in its way.
    auto conn = directory.connect();
    pqxx::nontransaction work(*conn);
    work.exec_params0("update stores set rate_limit_rpm = 1000000 where id in ($1, $2)", home.id, placed.id);
  }
  auto server = start_api_server(directory.url(), kSecret);
  auto get = [&](const TestKey& key, const std::string& path) {
    try {
      HttpResponse r = HttpClient(server->port(), 20s).get(path, {{"Authorization", "Bearer " + key.key}});
      return std::pair{r.status, r.header("Retry-After").has_value()};
    } catch (const std::exception&) {
      return std::pair{0, false};
    }
  };
  ASSERT_TRUE(eventually([&] { return get(placed_key, "/v1/products").first == 200; }));
  ASSERT_EQ(get(home_key, "/v1/products").first, 200);

  const Clock::time_point cut = Clock::now();
  lab->cut(pod_host);
  Clock::duration slowest{};
  long placed_503 = 0, placed_other = 0, home_not_200 = 0, readyz_not_200 = 0;
  // Long enough for the pod's connections to be given up and refused at once after.
  while (Clock::now() - cut < kDetectionBound + kLoadMargin + 2s) {
    const auto sent = Clock::now();
    const auto [status, retry_after] = get(placed_key, "/v1/products");
    slowest = std::max(slowest, Clock::now() - sent);
    if (status == 503 && retry_after)
      ++placed_503;
    else if (status != 200)
      ++placed_other;  // 200: answered before the pod's loss was known
    home_not_200 += get(home_key, "/v1/products").first != 200;
    readyz_not_200 += HttpClient(server->port(), 5s).get("/readyz").status != 200;
  }
  std::printf("netfault pod: slowest answer for the cut pod's store %.0f ms; its 503s %ld\n", ms(slowest), placed_503);
  EXPECT_GT(placed_503, 0);
  EXPECT_EQ(placed_other, 0);
  EXPECT_EQ(home_not_200, 0);
  EXPECT_EQ(readyz_not_200, 0);
  EXPECT_LT(slowest, kDetectionBound + kLoadMargin);
  lab->mend(pod_host);
}

}  // namespace
}  // namespace storeapi::testing
