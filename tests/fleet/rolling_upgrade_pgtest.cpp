// A rolling upgrade from the previous release under load, as docs/DEPLOY.md ("Upgrading")
// says to run it. The previous release is built from its commit id (a fresh clone may come
// without tags) by tools/build-release into a directory of its own, cached across runs.
// With that release: a database migrated and seeded, two nodes behind HAProxy and a
// dispatcher, a webhook receiver. Under read and keyed write load through HAProxy (a 503
// would be retried with the same key, and counted): `migrate` of this release while they
// serve, then the nodes replaced one at a time (SIGTERM: the node drains, HAProxy's health
// check takes it out, then this release starts on its port) and the dispatcher likewise.
// Checked: no 5xx and no request without an answer; every acknowledged write present
// once (stock and stock history, key by key); every event delivered once (the receiver
// counts by event id); no request overlapping `migrate` took longer than its lock_timeout
// plus a margin for this machine's load; every node names this release on /healthz.
//
// Seen failing: with the schema check's required migration raised past the newest one,
// the new nodes refuse to start (the test names the message); with `set lock_timeout`
// removed from the runner nothing fails here when no migration is pending (the runner's
// own test, migrate_locks_pgtest.cpp, holds that), which is why the migration window is
// reported with its longest request.
#include "admin/admin_cli.hpp"
#include "common/build_version.hpp"
#include "support/database_exec.hpp"
#include "support/free_port.hpp"
#include "support/haproxy_process.hpp"
#include "support/http_client.hpp"
#include "support/poll.hpp"
#include "support/readiness.hpp"
#include "support/scoped_env.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"
#include "support/webhook_receiver.hpp"

#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The previous release: v0.1.0. By commit id: tags may not travel with a clone.
constexpr const char* kPreviousRelease = "7eb8bbf50f18510eec8dc2dc3f1a7ea78faf44b5";
constexpr const char* kSecret = "rolling-upgrade-test-secret-of-at-least-32-bytes";
constexpr long kLockTimeoutMs = 1000;

// tools/build-release's build directory of the previous release; "" (and `why`) if it failed.
std::string previous_release_build(std::string& why) {
  const char* build = std::getenv("STOREAPI_BUILD_DIR");
  if (!build) return why = "STOREAPI_BUILD_DIR is not set (run through tools/test)", "";
  std::string root = std::string(build) + "/..";
  std::string command = root + "/tools/build-release " + kPreviousRelease + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return why = "cannot run tools/build-release", "";
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (pclose(pipe) != 0) return why = "tools/build-release failed: " + out.substr(out.size() > 2000 ? out.size() - 2000 : 0), "";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
}

// Runs the storeapi-admin of build directory `build`.
CliResult admin_of(const std::string& build, const std::vector<std::string>& args, const std::string& url) {
  ScopedEnv env({{"STOREAPI_BUILD_DIR", build}});
  return run_admin(args, url);
}

ProcessOptions node_options(const std::string& build, const std::string& url, std::uint16_t port) {
  ProcessOptions options;
  options.binary = build + "/storeapi";
  options.env = {{"STOREAPI_DATABASE_URL", url},      {"STOREAPI_SECRET", kSecret},
                 {"STOREAPI_ACCESS_LOG", "off"},      {"STOREAPI_THREADS", "2"},
                 {"STOREAPI_DRAIN_MS", "1000"},       {"STOREAPI_LISTEN", "127.0.0.1:" + std::to_string(port)}};
  return options;
}

std::unique_ptr<ServerProcess> start_node(const std::string& build, const std::string& url, std::uint16_t port) {
  auto node = std::make_unique<ServerProcess>(node_options(build, url, port));
  if (!every_core_ready(node->port())) throw std::runtime_error("node did not become ready: " + node->stderr_text());
  return node;
}

std::unique_ptr<ServerProcess> start_dispatcher(const std::string& build, const std::string& url) {
  ProcessOptions options;
  options.binary = build + "/storeapi-dispatch";
  options.env = {{"STOREAPI_DATABASE_URL", url},
                 {"STOREAPI_DISPATCH_POLL_MS", "200"},
                 {"STOREAPI_DISPATCH_METRICS_LISTEN", "127.0.0.1:0"},
                 {"STOREAPI_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8,::1/128"}};
  options.inherit_settings = false;
  options.wait_for_listening = false;
  auto dispatcher = std::make_unique<ServerProcess>(options);
  if (!eventually([&] { return dispatcher->metrics_port() != 0 || !dispatcher->running(); }))
    throw std::runtime_error("storeapi-dispatch did not start: " + dispatcher->stderr_text());
  return dispatcher;
}

std::string json_string(simdjson::dom::element e, const char* key) { return std::string(std::string_view(e[key])); }

TEST(RollingUpgrade, FromThePreviousReleaseUnderLoadWithoutAFailedRequest) {
  std::string why;
  const std::string previous = previous_release_build(why);
  ASSERT_FALSE(previous.empty()) << why;
  const std::string current = std::getenv("STOREAPI_BUILD_DIR");

  // The database as the previous release made it.
  TestDatabase db(TestDatabase::Schema::empty);
  simdjson::dom::parser parser;
  CliResult migrated = admin_of(previous, {"migrate"}, db.url());
  ASSERT_EQ(migrated.exit_code, 0) << migrated.err;
  CliResult created = admin_of(previous, {"store", "create", "--name", "Upgrade", "--slug", "upgrade", "--currency",
                                          "EUR", "--plan", "advanced", "--owner-email", "owner@upgrade.example"},
                               db.url());
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string store = json_string(parse_json(parser, created.out), "id");
  CliResult seeded = admin_of(previous, {"seed", "--store", store, "--orders", "100", "--products", "20",
                                         "--customers", "20", "--bookings", "10"},
                              db.url());
  ASSERT_EQ(seeded.exit_code, 0) << seeded.err;
  CliResult keyed = admin_of(previous, {"key", "create", "--store", store, "--name", "load", "--access", "full"},
                             db.url());
  ASSERT_EQ(keyed.exit_code, 0) << keyed.err;
  const std::string key = json_string(parse_json(parser, keyed.out), "key");
  value(db, "update stores set rate_limit_rpm = 1000000 where id = $1 returning id", store);
  const std::string variant = value(db,
                                    "select product_id || ' ' || id from variants where store_id = $1"
                                    " and deleted_at is null and stock is not null order by created_at, id limit 1",
                                    store);
  const std::string product_id = variant.substr(0, variant.find(' '));
  const std::string variant_id = variant.substr(variant.find(' ') + 1);
  value(db, "update variants set stock = 1000 where id = $1 returning id", variant_id);
  const long movements_before =
      std::stol(value(db, "select count(*) from stock_movements where variant_id = $1", variant_id));
  WebhookReceiver receiver;
  value(db,
        "insert into webhook_endpoints (store_id, url, secret, events) values ($1, '" + receiver.url() +
            "', 'whsec_cm9sbGluZy11cGdyYWRlLXNpZ25pbmctc2VjcmV0', '{product.updated}') returning id",
        store);

  // Two nodes and a dispatcher of the previous release, HAProxy in front.
  const std::vector<std::uint16_t> ports = {free_port(), free_port()};
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  for (std::uint16_t port : ports) nodes.push_back(start_node(previous, db.url(), port));
  std::unique_ptr<ServerProcess> dispatcher = start_dispatcher(previous, db.url());
  HaproxyProcess haproxy(ports);

  // The load, through HAProxy: keyed stock adjustments and reads, each timed.
  const std::string stock_path = "/v1/products/" + product_id + "/variants/" + variant_id + "/stock";
  std::atomic<bool> stop{false};
  std::atomic<long> acknowledged{0}, failed{0};
  std::mutex timings_mutex;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> timings;  // (sent, answered)
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto timed = [&](auto send) {
    const auto sent = Clock::now();
    std::optional<HttpResponse> r;
    try {
      r = send(HttpClient(haproxy.port(), 30s));
    } catch (const std::exception& e) {
      std::lock_guard lock(failures_mutex);
      failures.push_back(std::string("no answer: ") + e.what());
    }
    const auto answered = Clock::now();
    {
      std::lock_guard lock(timings_mutex);
      timings.emplace_back(sent, answered);
    }
    if (r && r->status >= 500) {
      std::lock_guard lock(failures_mutex);
      failures.push_back(std::to_string(r->status) + " " + r->body);
    }
    if (!r || r->status >= 500) ++failed;
    return r;
  };
  const Headers auth = {{"Authorization", "Bearer " + key}};
  std::vector<std::thread> clients;
  for (int writer = 0; writer < 2; ++writer)
    clients.emplace_back([&, writer] {
      for (long n = 0; !stop; ++n) {
        Headers headers = auth;
        headers.emplace_back("Idempotency-Key", "w" + std::to_string(writer) + "-" + std::to_string(n));
        auto r = timed([&](HttpClient client) {
          return client.request_json("POST", stock_path, headers, R"({"mode":"adjust","quantity":1})");
        });
        // Unanswered or refused: the same key again, as a client must (counted above).
        while (!stop && (!r || r->status == 503))
          r = timed([&](HttpClient client) {
            return client.request_json("POST", stock_path, headers, R"({"mode":"adjust","quantity":1})");
          });
        if (r && r->status == 200) ++acknowledged;
        else if (r) ADD_FAILURE() << "write: " << r->status << " " << r->body;
      }
    });
  clients.emplace_back([&] {
    for (std::size_t n = 0; !stop; ++n)
      timed([&](HttpClient client) {
        return client.get(n % 2 ? "/v1/orders?limit=10" : "/v1/products/" + product_id, auth);
      });
  });
  auto more_writes = [&](long n) {
    const long target = acknowledged + n;
    return eventually([&] { return acknowledged >= target || failed > 0; }, 60s);
  };

  // 1. migrate, this release, while the previous one serves.
  ASSERT_TRUE(more_writes(20));
  const auto migrate_started = Clock::now();
  CliResult forward = admin_of(current, {"migrate", "--lock-timeout-ms", std::to_string(kLockTimeoutMs)}, db.url());
  const auto migrate_ended = Clock::now();
  EXPECT_EQ(forward.exit_code, 0) << forward.err;
  std::cout << "migrate: " << forward.out << " in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(migrate_ended - migrate_started).count()
            << " ms\n";
  EXPECT_TRUE(more_writes(20)) << "the previous release's nodes stopped writing on the new schema";

  // 2. the nodes, one at a time; 3. the dispatcher.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i]->terminate(), 0) << nodes[i]->stderr_text();
    nodes[i] = start_node(current, db.url(), ports[i]);
    ASSERT_TRUE(eventually([&] { return haproxy.servers_up() == 2; }, 30s));
    EXPECT_TRUE(more_writes(10));
  }
  EXPECT_EQ(dispatcher->terminate(), 0) << dispatcher->stderr_text();
  dispatcher = start_dispatcher(current, db.url());
  EXPECT_TRUE(more_writes(10));
  stop = true;
  for (auto& t : clients) t.join();

  EXPECT_EQ(failed.load(), 0) << [&] {
    std::string all;
    for (const auto& f : failures) all += f.substr(0, 200) + "\n";
    return all;
  }();
  // No request that overlapped `migrate` waited on it longer than its lock_timeout (the
  // margin: this machine's load; without the timeout a lock queued behind a long
  // transaction holds them as long as that transaction).
  Clock::duration longest{};
  for (const auto& [sent, answered] : timings)
    if (answered >= migrate_started && sent <= migrate_ended) longest = std::max(longest, answered - sent);
  const auto longest_ms = std::chrono::duration_cast<std::chrono::milliseconds>(longest).count();
  std::cout << "requests " << timings.size() << ", acknowledged writes " << acknowledged
            << ", longest request during migrate " << longest_ms << " ms\n";
  EXPECT_LT(longest_ms, kLockTimeoutMs + 4000);

  // Every acknowledged write once.
  EXPECT_GT(acknowledged.load(), 50);
  EXPECT_EQ(value(db, "select stock from variants where id = $1", variant_id), std::to_string(1000 + acknowledged));
  EXPECT_EQ(value(db, "select count(*) from stock_movements where variant_id = $1", variant_id),
            std::to_string(movements_before + acknowledged));
  // Every event delivered once, by the old dispatcher or the new one.
  const long events =
      std::stol(value(db, "select count(*) from events where store_id = $1 and type = 'product.updated'", store));
  EXPECT_EQ(events, acknowledged.load());
  EXPECT_TRUE(receiver.wait_for_count(static_cast<std::size_t>(events), 60s)) << receiver.count() << " of " << events;
  EXPECT_TRUE(eventually([&] {
    return value(db, "select count(*) from webhook_deliveries where store_id = $1 and status <> 'succeeded'", store) == "0";
  }, 30s));
  std::map<std::string, int> deliveries;
  for (const auto& r : receiver.requests()) ++deliveries[r.header("webhook-id")];
  EXPECT_EQ(deliveries.size(), static_cast<std::size_t>(events));
  for (const auto& [id, times] : deliveries) EXPECT_EQ(times, 1) << id;

  // Every node runs this release.
  for (const auto& node : nodes) {
    HttpResponse health = HttpClient(node->port()).get("/healthz");
    EXPECT_NE(health.body.find("\"version\":\"" + std::string(build::version()) + "\""), std::string::npos)
        << health.body;
  }
}

}  // namespace
}  // namespace storeapi::testing
