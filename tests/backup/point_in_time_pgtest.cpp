// Point-in-time recovery keeps the API's promises (docs/DEPLOY.md, "Backups and
// recovery"): a cluster of the test's own archiving its WAL to a pgBackRest repository, a
// full backup, a seeded store served by storeapi with a dispatcher delivering its webhooks;
// idempotent stock writes from two clients, each recorded with when it was sent and when
// acknowledged; a time T among them; more writes; then a mistake (the store's stock history
// deleted through SQL, a product deleted with its variants). dist/pgbackrest/storeapi-recover
// recovers the stanza to T into a fresh cluster, and storeapi and a dispatcher start on it:
//   - every write acknowledged before T is there exactly once, none sent after T is, one in
//     flight across T at most once; the deleted rows are back, served on the same keys;
//   - an Idempotency-Key used (and acknowledged) after T runs again when retried, one used
//     before T replays;
//   - a list cursor issued after T pages on the recovered cluster (keyset positions, not
//     rows: docs/DEPLOY.md says why it is accepted);
//   - no webhook whose delivery the recovered database records as done is sent again; each
//     one the receiver saw that it does not record is either sent again (its event is
//     there) or named by the recovery report as delivered after T, its event gone.
// Seen failing (tools/mutants): with --type=time left out of the script (recovery to the
// archive's end) the writes after T are there and the deleted rows are not; with the
// report's history query bounded by `< T` instead of `>= T` the report names nothing.
#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>
#include <thread>

#include "admin/webhooks/webhooks.hpp"
#include "api/seeded_server.hpp"
#include "backup/backup_repository.hpp"
#include "support/dispatcher_process.hpp"
#include "support/poll.hpp"
#include "support/throwaway_cluster.hpp"
#include "support/readiness.hpp"
#include "support/webhook_receiver.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using WallClock = std::chrono::system_clock;

const std::string kSecret = "seeded-server-test-secret-of-32-bytes";  // SeededServer's: its cursors page here too

// PostgreSQL's timestamptz text of a wall-clock time, to the microsecond, UTC.
std::string timestamp(WallClock::time_point t) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = micros / 1000000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d.%06lld+00", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<long long>(micros % 1000000));
  return text;
}

struct Write {
  std::string key;  // Idempotency-Key and the movement's note
  WallClock::time_point sent;
  std::optional<WallClock::time_point> acknowledged;
};

std::string stock_body(const std::string& key) { return R"({"mode":"adjust","quantity":1,"note":")" + key + R"("})"; }

long long count_on(pqxx::connection& conn, const std::string& sql, const std::string& arg) {
  pqxx::nontransaction work(conn);
  return work.exec_params1(sql, arg)[0].as<long long>();
}

std::set<std::string> strings_on(pqxx::connection& conn, const std::string& sql) {
  pqxx::nontransaction work(conn);
  std::set<std::string> out;
  for (const auto& row : work.exec(sql)) out.insert(row[0].c_str());
  return out;
}

// The product ids of a page of GET /v1/products.
std::vector<std::string> product_ids(const HttpResponse& page) {
  simdjson::dom::parser parser;
  std::vector<std::string> ids;
  for (auto product : parser.parse(page.body)["data"].get_array()) ids.emplace_back(product["id"].get_string().value());
  return ids;
}

std::string next_cursor(const HttpResponse& page) {
  simdjson::dom::parser parser;
  auto cursor = parser.parse(page.body)["next_cursor"];
  return cursor.is_null() ? "" : std::string(cursor.get_string().value());
}

const char* kPending = "select count(*) from webhook_deliveries where status = 'pending'";
const char* kUnfanned = "select count(*) from events where fanned_out_at is null";
const char* kSucceeded =
    "select 'evt_' || replace(event_id::text, '-', '') from webhook_deliveries where status = 'succeeded'";

bool outbox_drained(pqxx::connection& conn) {
  pqxx::nontransaction work(conn);
  return work.exec1(kPending)[0].as<long long>() == 0 && work.exec1(kUnfanned)[0].as<long long>() == 0;
}

Settings dispatcher_settings(const std::string& url) {
  return {{"STOREAPI_DATABASE_URL", url},          {"STOREAPI_WEBHOOK_RETRY_SCHEDULE", "1,1"},
          {"STOREAPI_WEBHOOK_TIMEOUT_MS", "1000"}, {"STOREAPI_DISPATCH_POLL_MS", "200"},
          {"STOREAPI_DISPATCH_LEASE_MS", "4000"},  {"STOREAPI_SMTP_TIMEOUT_MS", "2000"}};
}

TEST(PointInTimeRecovery, KeepsEveryWriteBeforeTheTargetAndNoneAfter) {
  ThrowawayCluster cluster;
  BackupRepository repository(cluster);
  SeededServer env(cluster.url());
  repository.backup("full");
  const std::int64_t backup_stop = repository.newest_backup_stop();

  WebhookReceiver receiver;
  {
    auto conn = env.database().connect();
    pqxx::work work(*conn);
    admin::add_webhook(work, env.store().id, receiver.url(), std::nullopt, loopback_destinations());
    work.commit();
  }
  auto dispatcher = std::make_unique<DispatcherProcess>(dispatcher_settings(env.database().url()));

  const VariantRef written = env.live_variant(0);
  VariantRef deleted;
  for (int nth = 1; deleted.product.empty() || deleted.product == written.product; ++nth)
    deleted = env.live_variant(nth);
  env.exec("update variants set stock = 100000 where id = $1", written.variant);

  // Two clients writing until told to stop; T is taken while they run.
  std::mutex writes_mutex;
  std::vector<Write> writes;
  std::atomic<bool> stop{false};
  auto client = [&](int n) {
    for (int i = 0; !stop; ++i) {
      Write w{"pitr-" + std::to_string(n) + "-" + std::to_string(i), WallClock::now(), std::nullopt};
      try {
        HttpResponse r = HttpClient(env.port(), 10s)
                             .request_json("POST", written.path() + "/stock",
                                           {{"Authorization", "Bearer " + env.key().key}, {"Idempotency-Key", w.key}},
                                           stock_body(w.key));
        if (r.status == 200) w.acknowledged = WallClock::now();
      } catch (const std::exception&) {
        // No answer: unacknowledged, counted as in flight.
      }
      std::lock_guard lock(writes_mutex);
      writes.push_back(w);
    }
  };
  auto acknowledged_writes = [&](std::optional<WallClock::time_point> sent_after) {
    std::lock_guard lock(writes_mutex);
    return std::count_if(writes.begin(), writes.end(), [&](const Write& w) {
      return w.acknowledged && (!sent_after || w.sent > *sent_after);
    });
  };
  std::thread first(client, 1), second(client, 2);
  // T falls in a later second than the backup's recorded stop (by the database's clock),
  // or pgBackRest finds no backup to recover to T from; and writes were acknowledged
  // before it.
  ASSERT_TRUE(eventually([&] {
    return env.count("select floor(extract(epoch from clock_timestamp()))::bigint") > backup_stop;
  }));
  ASSERT_TRUE(eventually([&] { return acknowledged_writes(std::nullopt) >= 20; }, 60s));
  const WallClock::time_point target = WallClock::now();
  // And writes sent after T acknowledged.
  ASSERT_TRUE(eventually([&] { return acknowledged_writes(target) >= 20; }, 60s));
  stop = true;
  first.join();
  second.join();

  // A list cursor issued after T, and the page it leads to now.
  const Headers bearer{{"Authorization", "Bearer " + env.key().key}};
  HttpResponse first_page = HttpClient(env.port()).get("/v1/products?limit=2", bearer);
  ASSERT_EQ(first_page.status, 200) << first_page.body;
  const std::string cursor = next_cursor(first_page);
  ASSERT_FALSE(cursor.empty());
  HttpResponse cursor_page = HttpClient(env.port()).get("/v1/products?limit=2&cursor=" + cursor, bearer);
  ASSERT_EQ(cursor_page.status, 200) << cursor_page.body;

  // The mistake: the store's stock history and a product gone, by hand.
  env.exec("set session_replication_role = replica");
  env.exec("delete from stock_movements where store_id = $1", env.store().id);
  env.exec("delete from variants where store_id = $1 and product_id = $2", env.store().id, deleted.product);
  env.exec("delete from products where store_id = $1 and id = $2", env.store().id, deleted.product);
  env.exec("set session_replication_role = origin");
  ASSERT_EQ(HttpClient(env.port()).get("/v1/products/" + deleted.product, bearer).status, 404);

  // Every webhook of the lost history delivered, then the old dispatcher stopped.
  {
    auto conn = env.database().connect();
    ASSERT_TRUE(eventually([&] { return outbox_drained(*conn); }, 60s)) << dispatcher->stderr_text();
  }
  dispatcher->terminate();
  const std::vector<ReceivedRequest> seen_before = receiver.requests();
  repository.archive_current_wal();

  const auto started = std::chrono::steady_clock::now();
  BackupRepository::Recovery recovery =
      repository.recover(timestamp(target), env.database().name(), env.database().url());
  const double recovery_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string recovered_url = with_database(recovery.cluster->url(), env.database().name());
  pqxx::connection recovered(recovered_url);

  long before = 0, after = 0, acknowledged_after = 0, in_flight = 0;
  const std::string movements = "select count(*) from stock_movements where note = $1";
  for (const Write& w : writes) {
    const long long n = count_on(recovered, movements, w.key);
    if (w.acknowledged && *w.acknowledged < target) {
      EXPECT_EQ(n, 1) << w.key << " acknowledged before T";
      ++before;
    } else if (w.sent > target) {
      EXPECT_EQ(n, 0) << w.key << " sent after T";
      ++after;
      if (w.acknowledged) ++acknowledged_after;
    } else {
      EXPECT_LE(n, 1) << w.key << " in flight at T";
      ++in_flight;
    }
  }
  std::printf(
      "point-in-time recovery: %ld writes acknowledged before T, %ld sent after T (%ld acknowledged), %ld in flight "
      "at T; recovered in %.1f s\n",
      before, after, acknowledged_after, in_flight, recovery_seconds);
  ASSERT_GE(before, 20);
  ASSERT_GE(acknowledged_after, 20);

  // Outbox state the recovered database starts the dispatcher with.
  const std::set<std::string> done_before_target = strings_on(recovered, kSucceeded);
  EXPECT_FALSE(done_before_target.empty());

  auto server = start_api_server(recovered_url, kSecret);
  EXPECT_EQ(HttpClient(server->port()).get("/v1/products/" + deleted.product, bearer).status, 200)
      << "the deleted product is back";
  EXPECT_EQ(HttpClient(server->port()).get("/v1/products/" + deleted.product, bearer).status, 200);

  const Write* before_target = nullptr;
  const Write* after_target = nullptr;
  for (const Write& w : writes) {
    if (!w.acknowledged) continue;
    if (*w.acknowledged < target && !before_target) before_target = &w;
    if (w.sent > target) after_target = &w;
  }
  ASSERT_TRUE(before_target && after_target);
  auto retry = [&](const Write& w) {
    return HttpClient(server->port())
        .request_json("POST", written.path() + "/stock",
                      {{"Authorization", "Bearer " + env.key().key}, {"Idempotency-Key", w.key}}, stock_body(w.key));
  };
  HttpResponse replayed = retry(*before_target);
  EXPECT_EQ(replayed.status, 200) << replayed.body;
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), std::optional<std::string>("true"));
  HttpResponse ran_again = retry(*after_target);
  EXPECT_EQ(ran_again.status, 200) << ran_again.body;
  EXPECT_FALSE(ran_again.header("Idempotent-Replayed").has_value()) << "a key used after T runs again";
  EXPECT_EQ(count_on(recovered, movements, after_target->key), 1);
  EXPECT_EQ(count_on(recovered, movements, before_target->key), 1);

  HttpResponse paged = HttpClient(server->port()).get("/v1/products?limit=2&cursor=" + cursor, bearer);
  EXPECT_EQ(paged.status, 200) << paged.body;
  EXPECT_EQ(product_ids(paged), product_ids(cursor_page)) << "a cursor issued after T pages on the recovered data";

  // The recovered cluster's dispatcher: what it records as delivered is not sent again.
  const std::size_t mark = receiver.count();
  auto recovered_dispatcher = std::make_unique<DispatcherProcess>(dispatcher_settings(recovered_url));
  ASSERT_TRUE(eventually([&] { return outbox_drained(recovered); }, 60s)) << recovered_dispatcher->stderr_text();
  recovered_dispatcher->terminate();
  const std::vector<ReceivedRequest> all = receiver.requests();
  std::set<std::string> sent_again;
  for (std::size_t i = mark; i < all.size(); ++i) sent_again.insert(all[i].header("webhook-id"));
  for (const std::string& id : done_before_target) EXPECT_EQ(sent_again.count(id), 0u) << id << " sent again";

  // Each webhook the receiver saw before the recovery is accounted for: recorded as done,
  // sent again, or named by the report as delivered after T with its event gone.
  simdjson::dom::parser parser;
  std::set<std::string> reported_gone;
  for (auto entry : parser.parse(recovery.report)["delivered_after_target"].get_array())
    if (!entry["event_in_recovered_database"].get_bool().value())
      reported_gone.emplace(entry["event"].get_string().value());
  EXPECT_FALSE(reported_gone.empty());
  for (const ReceivedRequest& r : seen_before) {
    const std::string id = r.header("webhook-id");
    EXPECT_TRUE(done_before_target.count(id) || sent_again.count(id) || reported_gone.count(id)) << id;
  }
  for (const std::string& id : reported_gone) EXPECT_EQ(sent_again.count(id), 0u) << id;
}

}  // namespace
}  // namespace storeapi::testing
