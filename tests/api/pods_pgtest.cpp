// Pods against the real server over HTTP (docs/DECISIONS.md, "Pods"): the directory on the
// shared test cluster is also the pod `main`; a second pod is a database on a PostgreSQL
// cluster of this suite's own (ThrowawayCluster), so that stopping it stops nothing else.
// Store A lives on main, store B on the second pod, each seeded there.
//
// How each was seen to fail without what it tests:
// - with every unit on main's pool (the pod named in api::run_unit and write_on_pod
//   replaced by "main"): B's products listed empty and its stock write 404
//   (AStoreIsServedFromItsPod), B answered while its pod was down
//   (APodDownAnswers503ForItsOwnStoresOnly), and the two placement tests failed;
// - with a fenced write answered 503 at once (no retry in write_on_pod): the three
//   AFencedWrite tests;
// - with Authenticator::relocate not looking the key up again:
//   AFencedWriteFollowsTheStoreToItsNewPod (fenced on main until its 503);
// - with relocate checking revocation only: AFencedWritesRetryChecksTheKeyAgain (the
//   expired key's and the free plan's writes ran once the fence lifted);
// - with KeyCache::invalidate ignoring `store:<id>`: AStoreNoticeDropsTheCachedPlacement
//   (B's reads stayed on the second pod after the notice was confirmed);
// - with `pod:<name>` confirmed without reading the pods again (Application's
//   apply_store_change): APodNoticeReadsThePodsAgain (503s from the old address).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "admin/base/confirmations.hpp"
#include "admin/base/json.hpp"
#include "admin/seed/seed.hpp"
#include "support/database_exec.hpp"
#include "support/free_port.hpp"
#include "support/http_client.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"
#include "support/readiness.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"
#include "support/test_pod.hpp"
#include "support/throwaway_cluster.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kReply = 30s;

// A store of the directory with its full-access key.
struct PlacedStore {
  TestStore store;
  TestKey key;
};

void seed(TestDatabase& on, const std::string& store_id) {
  auto conn = on.connect();
  pqxx::work work(*conn);
  admin::JsonWriter summary;
  admin::seed_store(summary, work, store_id, admin::seed::SeedSizes{});
  work.commit();
}

class Pods : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = new ThrowawayCluster(); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override {
    if (!cluster_) GTEST_SKIP() << "no cluster of this suite: see the set-up failure above";
    second_ = std::make_unique<TestPod>(directory_, "second", cluster_->url());
    a_ = place(nullptr);
    b_ = place(second_.get());
    server_ = start_api_server(api_url(directory_), "pods-test-secret-of-at-least-32-bytes");
  }

  // Every test leaves the cluster running (its database is dropped at the end).
  void TearDown() override {
    if (cluster_ && !cluster_->running()) cluster_->start();
  }

  // A store created in the directory, placed on `pod` (nullptr: main) and seeded there.
  PlacedStore place(TestPod* pod) {
    TestStore store = directory_.create_store("advanced");
    exec(directory_, "update stores set rate_limit_rpm = 1000000 where id = $1", store.id);
    if (pod) pod->place(store.id);
    seed(pod ? pod->database() : directory_, store.id);
    return {store, directory_.create_key(store.id, "full")};
  }

  HttpResponse request(const PlacedStore& s, std::string_view method, std::string_view path,
                       std::string_view body = {}) {
    HttpClient client(server_->port(), kReply);
    if (body.empty()) return client.request(method, path, bearer(s.key.key));
    return client.request_json(method, path, bearer(s.key.key), body);
  }

  // The path of a tracked variant's stock of `s`, whose data lives on `on`.
  std::string stock_path(TestDatabase& on, const PlacedStore& s) {
    const std::string row = value(on,
                                  "select v.product_id || '/variants/' || v.id from variants v"
                                  " where v.store_id = $1 and v.deleted_at is null and v.stock is not null"
                                  " order by v.created_at, v.id limit 1",
                                  s.store.id);
    return "/v1/products/" + row + "/stock";
  }

  // How many products of `s` the API lists on its first page (its pod's).
  std::size_t products_listed(const PlacedStore& s) {
    const HttpResponse r = request(s, "GET", "/v1/products?limit=100");
    EXPECT_EQ(r.status, 200) << r.body << server_->stderr_text();
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(r.body);
    return simdjson::dom::array(doc["data"]).size();
  }

  // Stock movements the API made with `s`'s key, on `on`.
  std::string api_movements(TestDatabase& on, const PlacedStore& s) {
    return value(on, "select count(*) from stock_movements where store_id = $1 and api_key_id = $2", s.store.id,
                 s.key.id);
  }

  double fenced_tries() { return metric_value(scrape_metrics(server_->metrics_port()), "storeapi_writes_fenced_total"); }

  static inline ThrowawayCluster* cluster_ = nullptr;
  TestDatabase directory_;
  std::unique_ptr<TestPod> second_;
  PlacedStore a_, b_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(Pods, AStoreIsServedFromItsPod) {
  const auto on_second = std::stoul(value(
      second_->database(), "select count(*) from products where store_id = $1 and deleted_at is null", b_.store.id));
  ASSERT_GT(on_second, 0u);
  EXPECT_EQ(value(directory_, "select count(*) from products where store_id = $1", b_.store.id), "0");
  EXPECT_EQ(products_listed(b_), std::min<std::size_t>(on_second, 100));
  EXPECT_GT(products_listed(a_), 0u);

  const std::string path = stock_path(second_->database(), b_);
  const HttpResponse w = request(b_, "POST", path, R"({"mode":"set","quantity":41})");
  EXPECT_EQ(w.status, 200) << w.body;
  EXPECT_EQ(api_movements(second_->database(), b_), "1");
}

TEST_F(Pods, APodDownAnswers503ForItsOwnStoresOnly) {
  const std::string a_stock = stock_path(directory_, a_);
  const std::string b_stock = stock_path(second_->database(), b_);
  ASSERT_EQ(request(b_, "GET", "/v1/products").status, 200);
  cluster_->stop();

  for (int i = 0; i < 4; ++i) {  // on fresh connections: both cores
    const HttpResponse read = request(b_, "GET", "/v1/products");
    EXPECT_EQ(read.status, 503) << read.body;
    EXPECT_TRUE(read.has_header("Retry-After"));
    const HttpResponse write = request(b_, "POST", b_stock, R"({"mode":"adjust","quantity":1})");
    EXPECT_EQ(write.status, 503) << write.body;
    EXPECT_TRUE(write.has_header("Retry-After"));

    EXPECT_EQ(request(a_, "GET", "/v1/products").status, 200);
    const HttpResponse a_write = request(a_, "POST", a_stock, R"({"mode":"adjust","quantity":1})");
    EXPECT_EQ(a_write.status, 200) << a_write.body;
    EXPECT_EQ(HttpClient(server_->port(), kReply).get("/readyz").status, 200);
  }

  cluster_->start();
  // Each core's connections come back on their own backoff: fresh connections until one
  // write is answered (the refused ones sent nothing), then every core.
  EXPECT_TRUE(eventually(
      [&] { return request(b_, "POST", b_stock, R"({"mode":"adjust","quantity":1})").status == 200; }));
  EXPECT_EQ(api_movements(second_->database(), b_), "1");
  EXPECT_TRUE(eventually([&] {
    for (int i = 0; i < 8; ++i)
      if (request(b_, "GET", "/v1/products").status != 200) return false;
    return true;
  }));
}

TEST_F(Pods, AFencedWriteWaitsForTheFenceToLift) {
  const std::string path = stock_path(directory_, a_);
  exec(directory_, "select api.fence_store_writes($1, 1, false)", a_.store.id);
  // Lifted once the server has met the fence (its count of fenced tries), while the write
  // is still retrying: not after a guessed time.
  const double tries_before = std::max(0.0, fenced_tries());  // -1: not counted yet
  std::thread lift([&] {
    EXPECT_TRUE(eventually([&] { return fenced_tries() > tries_before; }, 10s, 5ms));
    exec(directory_, "delete from store_fences where store_id = $1", a_.store.id);
  });
  const HttpResponse w = request(a_, "POST", path, R"({"mode":"set","quantity":17})");
  lift.join();
  EXPECT_EQ(w.status, 200) << w.body;
  EXPECT_GE(fenced_tries(), tries_before + 1);
  EXPECT_EQ(api_movements(directory_, a_), "1");
}

TEST_F(Pods, AFencedWriteStillFencedAfterItsBoundAnswers503) {
  const std::string path = stock_path(directory_, a_);
  exec(directory_, "select api.fence_store_writes($1, 1, false)", a_.store.id);
  const HttpResponse w = request(a_, "POST", path, R"({"mode":"adjust","quantity":1})");
  EXPECT_EQ(w.status, 503) << w.body;
  EXPECT_TRUE(w.has_header("Retry-After"));
  // Tried again, not answered at its first refusal (the count, not the time: no timing
  // assertions on a shared machine; 2 s at 50 ms steps is far more than 3 tries).
  EXPECT_GE(fenced_tries(), 3);
  EXPECT_EQ(api_movements(directory_, a_), "0");
}

TEST_F(Pods, AFencedWriteFollowsTheStoreToItsNewPod) {
  const std::string path = stock_path(directory_, a_);
  // Cached on both cores with its placement on main.
  for (int i = 0; i < 8; ++i) ASSERT_EQ(request(a_, "GET", "/v1/store").status, 200);
  // A move's cut-over as the servers meet it before its notice: fenced on main, placed on
  // the second pod in the directory. The variant is not on the second pod (no data was
  // copied), so the answer shows where the write ran: there, a 404.
  exec(directory_, "select api.fence_store_writes($1, 1, false)", a_.store.id);
  second_->place(a_.store.id);
  const HttpResponse w = request(a_, "POST", path, R"({"mode":"adjust","quantity":1})");
  EXPECT_EQ(w.status, 404) << w.body;
  EXPECT_GE(fenced_tries(), 1);
  EXPECT_EQ(api_movements(directory_, a_), "0");
  // Its other requests, on either core, follow it too.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(products_listed(a_), 0u);
}

// A fenced write's retry checks its key as a new request does: a key that expired, or a
// store whose plan lost the API, while the write waited for the fence is not let through
// when the fence lifts. The changes are made in the database only (no notice reaches the
// node's cache), as a key expires by the clock alone.
TEST_F(Pods, AFencedWritesRetryChecksTheKeyAgain) {
  const std::string path = stock_path(directory_, a_);
  for (const char* change : {"update api_keys set expires_at = now() where store_id = $1",
                             "update stores set plan = 'free' where id = $1"}) {
    // Cached on both cores (after the previous round's notice, as it was).
    ASSERT_TRUE(eventually([&] {
      for (int i = 0; i < 8; ++i)
        if (request(a_, "GET", "/v1/store").status != 200) return false;
      return true;
    }));
    exec(directory_, "select api.fence_store_writes($1, 1, false)", a_.store.id);
    // Once the write met the fence (authenticated before the change): the change, then
    // the lift. Every retry looks the key up again before it tries (write_on_pod: a
    // refused try is counted, then the key looked up): lifted once a try is counted after
    // the change, so the next lookup is after the change too, or once the write was
    // answered (the count it waits for may have come before `changed` was read).
    const double fenced_before = fenced_tries();
    std::atomic<bool> answered = false;
    std::thread lift([&] {
      EXPECT_TRUE(eventually([&] { return fenced_tries() > fenced_before; }));
      exec(directory_, change, a_.store.id);
      const double changed = fenced_tries();
      EXPECT_TRUE(eventually([&] { return answered || fenced_tries() > changed; }));
      exec(directory_, "delete from store_fences where store_id = $1", a_.store.id);
    });
    const HttpResponse w = request(a_, "POST", path, R"({"mode":"adjust","quantity":1})");
    answered = true;
    lift.join();
    EXPECT_EQ(w.status, 503) << change << ": " << w.body;
    EXPECT_EQ(api_movements(directory_, a_), "0") << change;
    exec(directory_, "update api_keys set expires_at = null where store_id = $1", a_.store.id);
    exec(directory_, "update stores set plan = 'advanced' where id = $1", a_.store.id);
    exec(directory_, "select pg_notify(api.config('invalidate_channel'), 'store:' || $1)", a_.store.id);
  }
}

// `pod:<name>` makes the node read the pods table again before it confirms: a pod's
// address changed before any core made its pools is the new one. The book first holds the
// old (unreachable) address, read when a core met another pod it did not know.
TEST_F(Pods, APodNoticeReadsThePodsAgain) {
  TestPod third(directory_, "third", cluster_->url());
  TestPod fourth(directory_, "fourth", cluster_->url());
  const PlacedStore t = place(&third);
  const PlacedStore f = place(&fourth);
  const std::string nowhere = "postgresql://127.0.0.1:" + std::to_string(free_port()) + "/nowhere";
  exec(directory_, "update pods set url = $1 where name in ('third', 'fourth')", nowhere);
  EXPECT_EQ(request(f, "GET", "/v1/products").status, 503);  // the book now says `nowhere` for both

  {
    auto conn = directory_.connect();
    admin::ServerConfirmations confirmations(*conn);
    pqxx::work work(*conn);
    work.exec_params("update pods set url = $1 where name = 'third'", third.database().url());
    work.exec("select pg_notify('storeapi_invalidate', 'pod:third')");
    work.commit();
    ASSERT_EQ(confirmations.wait(10s), 0u);
  }
  for (int i = 0; i < 8; ++i) EXPECT_GT(products_listed(t), 0u);  // both cores, on the new address
}

TEST_F(Pods, AStoreNoticeDropsTheCachedPlacement) {
  for (int i = 0; i < 8; ++i) ASSERT_GT(products_listed(b_), 0u);  // cached on both cores: the second pod
  {
    auto conn = directory_.connect();
    admin::ServerConfirmations confirmations(*conn);
    pqxx::work flip(*conn);
    flip.exec_params("update stores set pod = 'main', placement_epoch = placement_epoch + 1 where id = $1",
                     b_.store.id);
    flip.exec_params("select pg_notify('storeapi_invalidate', 'store:' || $1)", b_.store.id);
    flip.commit();
    ASSERT_EQ(confirmations.wait(10s), 0u);
  }
  // Placed on main now, where it has no products.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(products_listed(b_), 0u);
}

}  // namespace
}  // namespace storeapi::testing
