// `storeapi-admin store restore` (admin/move/store_restore.hpp): one store of a pod put back as
// it was at a time T, from a copy of the pod recovered to T by storeapi-recover, while two
// other stores of the same pod are served (one written, one read) by the same server.
// A cluster of the test's own archiving to a pgBackRest repository; three seeded stores; a
// full backup; a write to store A before T, one after it; a mistake on A (its stock
// history and a product deleted through SQL); the pod recovered to T on a scratch port.
// The restore is killed at its fence (held by a write in flight), then while it replaces
// A's rows (held by a row lock of the test's): A stays fenced (its writes refused with
// 503), its rows untouched; run again, it finishes. Then:
//   - every table of A's data on the pod has the digest of the copy's rows of A;
//   - the deleted product is served again, the write after T is gone and its
//     Idempotency-Key runs again, the write before T replays;
//   - store B took writes throughout, each acknowledged one there once, and no answer but
//     200; store C was read throughout without an error and its rows are untouched.
// A second case does the same for a store of a second pod (its own cluster, its own
// stanza, added with `pod add`): the restore reaches that pod, the store on main is
// untouched too.
// Seen failing (tools/mutants): with the fence left out of the restore A's write during
// the kill is answered 200 (and undone by the rerun); with the delete not limited to the
// store, store C's rows are gone.
#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <simdjson.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "admin/admin_cli.hpp"
#include "api/seeded_server.hpp"
#include "backup/backup_repository.hpp"
#include "support/poll.hpp"
#include "support/runtime_role.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

std::string stock_body(const std::string& note) { return R"({"mode":"adjust","quantity":1,"note":")" + note + R"("})"; }

// A stock adjustment of `variant` whose Idempotency-Key is also its movement's note.
HttpResponse keyed_write(std::uint16_t port, const VariantRef& variant, const std::string& api_key,
                         const std::string& key) {
  return HttpClient(port, 10s).request_json(
      "POST", variant.path() + "/stock", {{"Authorization", "Bearer " + api_key}, {"Idempotency-Key", key}},
      stock_body(key));
}

template <class... Args>
std::string value_on(pqxx::connection& conn, const std::string& sql, const Args&... args) {
  pqxx::nontransaction work(conn);
  auto field = work.exec_params1(sql, args...)[0];
  return field.is_null() ? "<null>" : field.c_str();
}

// A digest of the store's rows of each table of store data: the tables a restore
// replaces (not its fence, nor the directory's facts).
std::map<std::string, std::string> store_digests(pqxx::connection& conn, const std::string& store) {
  pqxx::nontransaction work(conn);
  std::map<std::string, std::string> digests;
  for (const auto& row :
       work.exec("select c.relname from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'store_id'"
                 " where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition"
                 "   and c.relname not in ('store_fences', 'api_keys', 'store_moves', 'staff_members')")) {
    const std::string table = row[0].c_str();
    digests[table] = work.exec_params1(
                             "select count(*) || ':' || coalesce(md5(string_agg(t::text, ',' order by t::text)), '')"
                             " from " +
                                 work.quote_name(table) + " t where store_id = $1",
                             store)[0]
                         .c_str();
  }
  return digests;
}

// The load on two other stores of the restored store's pod, through the server, until
// stop(): store B written (keyed adjustments, each acknowledged key kept), store C read;
// every answer's status counted, and C's read latencies (ms) by `stage`: 0 nothing yet,
// 1 the killed runs, 2 the run that finishes, 3 after it.
class OtherStoresLoad {
 public:
  OtherStoresLoad(std::uint16_t port, VariantRef b_variant, std::string b_key, std::string c_key)
      : port_(port), b_variant_(std::move(b_variant)), b_key_(std::move(b_key)), c_key_(std::move(c_key)) {
    b_writer_ = std::thread([this] { write_b(); });
    c_reader_ = std::thread([this] { read_c(); });
  }
  ~OtherStoresLoad() { stop(); }

  std::atomic<int> stage{0};

  // C was read `n` times at `stage` at least.
  bool c_reads_at_least(int at, std::size_t n) {
    std::lock_guard lock(mutex_);
    return c_latencies_[at].size() >= n;
  }
  void stop() {
    stop_ = true;
    if (b_writer_.joinable()) b_writer_.join();
    if (c_reader_.joinable()) c_reader_.join();
  }
  // After stop(): every answer was a 200, and each of B's acknowledged writes is on the
  // pod once; C's p99 by stage printed, not asserted (a shared machine's timings).
  void check(pqxx::connection& pod, const char* label) {
    for (auto& [at, latencies] : c_latencies_) {
      std::sort(latencies.begin(), latencies.end());
      std::printf("%s: store C's reads %s: %zu, p99 %.1f ms\n", label,
                  at == 0   ? "before"
                  : at == 1 ? "during the killed runs"
                  : at == 2 ? "during the restore"
                            : "after",
                  latencies.size(), latencies.empty() ? 0.0 : latencies[latencies.size() * 99 / 100]);
    }
    for (const auto& [status, count] : b_statuses_)
      EXPECT_EQ(status, 200) << count << " writes of B answered " << status;
    for (const auto& [status, count] : c_statuses_) EXPECT_EQ(status, 200) << count << " reads of C answered " << status;
    EXPECT_GT(b_statuses_[200], 0);
    EXPECT_GT(c_statuses_[200], 0);
    for (const std::string& key : b_acknowledged_)
      EXPECT_EQ(value_on(pod, "select count(*) from stock_movements where note = $1", key), "1") << key;
  }

 private:
  void write_b() {
    for (int i = 0; !stop_; ++i) {
      const std::string key = "restore-b-" + std::to_string(i);
      int status = 0;
      try {
        status = keyed_write(port_, b_variant_, b_key_, key).status;
      } catch (const std::exception&) {
      }
      std::lock_guard lock(mutex_);
      ++b_statuses_[status];
      if (status == 200) b_acknowledged_.push_back(key);
    }
  }
  void read_c() {
    while (!stop_) {
      int status = 0;
      const int at = stage;
      const auto sent = std::chrono::steady_clock::now();
      try {
        status = HttpClient(port_, 10s).get("/v1/products?limit=5", {{"Authorization", "Bearer " + c_key_}}).status;
      } catch (const std::exception&) {
      }
      std::lock_guard lock(mutex_);
      ++c_statuses_[status];
      c_latencies_[at].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent).count());
    }
  }

  std::uint16_t port_;
  VariantRef b_variant_;
  std::string b_key_, c_key_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::map<int, long> b_statuses_, c_statuses_;
  std::map<int, std::vector<double>> c_latencies_;
  std::vector<std::string> b_acknowledged_;
  std::thread b_writer_, c_reader_;
};

// Kills `store restore` while it replaces the store's rows: a row of `product` locked by
// the test holds its delete. Meanwhile and after, the store's writes (`write_store`) are
// refused with 503, and `deleted_product`, gone since the mistake, is still gone: the
// killed replace changed nothing.
void kill_while_replacing(TestDatabase& pod, const std::string& store, const std::string& product,
                          const std::string& copy_url, const std::string& directory_url,
                          const std::function<HttpResponse(const std::string&)>& write_store,
                          const std::function<int()>& deleted_product_status) {
  auto watcher = pod.connect();
  {
    auto holder = pod.connect();
    pqxx::work lock(*holder);
    lock.exec_params("select 1 from products where store_id = $1 and id = $2 for update", store, product);
    const pid_t pid = start_admin({"store", "restore", "--store", store, "--from", copy_url}, directory_url);
    EXPECT_TRUE(eventually(
        [&] {
          return value_on(*watcher,
                          "select count(*) from pg_stat_activity where application_name = 'storeapi-admin'"
                          " and wait_event_type = 'Lock' and query like $1",
                          "delete from %") == "1";
        },
        60s));
    HttpResponse fenced = write_store("restore-during");
    EXPECT_EQ(fenced.status, 503) << fenced.body;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    lock.abort();
  }
  // The killed process's session ends once its delete, no longer held, finishes.
  EXPECT_TRUE(eventually([&] {
    return value_on(*watcher, "select count(*) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
                    "delete from %") == "0";
  }));
  EXPECT_EQ(write_store("restore-during").status, 503) << "still fenced after the kill";
  EXPECT_EQ(deleted_product_status(), 404) << "the killed replace changed nothing";
}

// After the restore: the deleted product is served again, the key used before T replays,
// the one used after T runs again, the write refused while fenced is nowhere.
void expect_store_at_target(pqxx::connection& pod, const std::function<HttpResponse(const std::string&)>& write_store,
                            const std::function<int()>& deleted_product_status) {
  EXPECT_EQ(deleted_product_status(), 200);
  HttpResponse replayed = write_store("restore-before");
  EXPECT_EQ(replayed.status, 200) << replayed.body;
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), std::optional<std::string>("true"));
  HttpResponse again = write_store("restore-after");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_FALSE(again.header("Idempotent-Replayed").has_value()) << "a key used after T runs again";
  EXPECT_EQ(value_on(pod, "select count(*) from stock_movements where note = $1", "restore-after"), "1");
  EXPECT_EQ(value_on(pod, "select count(*) from stock_movements where note = $1", "restore-during"), "0");
}

// The mistake: the store's stock history and a product with its variants deleted by hand.
void delete_by_mistake(pqxx::connection& conn, const std::string& store, const std::string& product) {
  pqxx::work work(conn);
  work.exec("set local session_replication_role = replica");
  work.exec_params("delete from stock_movements where store_id = $1", store);
  work.exec_params("delete from variants where store_id = $1 and product_id = $2", store, product);
  work.exec_params("delete from products where store_id = $1 and id = $2", store, product);
  work.commit();
}

// A time T by the database's clock, after what it committed so far, and once it passed.
std::string time_now_passed(pqxx::connection& conn) {
  const std::string target = value_on(conn, "select (clock_timestamp() + interval '1 millisecond')::text");
  EXPECT_TRUE(eventually([&] { return value_on(conn, "select clock_timestamp() > $1::timestamptz", target) == "t"; }));
  return target;
}

// Once the clock of the database of `conn` is in a later second than the newest backup's
// recorded stop: pgBackRest restores to T only from a backup stopped before T by it.
void wait_past_backup(pqxx::connection& conn, BackupRepository& repository) {
  const std::int64_t stop = repository.newest_backup_stop();
  ASSERT_TRUE(eventually([&] {
    return std::stoll(value_on(conn, "select floor(extract(epoch from clock_timestamp()))::bigint::text")) > stop;
  }));
}

// A seeded store created on `pod` (store create --pod, seed), its rate limit raised, and
// a full-access key.
std::pair<std::string, TestKey> seeded_store_on(TestDatabase& directory, const std::string& pod,
                                                const std::string& slug) {
  CliResult created = run_admin({"store", "create", "--name", slug, "--slug", slug, "--currency", "EUR", "--plan",
                                 "advanced", "--owner-email", slug + "@restore.example", "--pod", pod},
                                directory.url());
  if (created.exit_code != 0) throw std::runtime_error("store create: " + created.err);
  simdjson::dom::parser parser;
  const std::string id(parse_json(parser, created.out)["id"].get_string().value());
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"seed", "--store", id},
        std::vector<std::string>{"store", "set-rate-limit", "--store", id, "--rpm", "1000000"}}) {
    CliResult done = run_admin(command, directory.url());
    if (done.exit_code != 0) throw std::runtime_error(command.front() + ": " + done.err);
  }
  return {id, directory.create_key(id, "full")};
}

// A product of the store other than `variant`'s: the one the mistake deletes.
VariantRef another_product(pqxx::connection& conn, const std::string& store, const VariantRef& variant) {
  VariantRef other;
  for (int nth = 1; other.product.empty() || other.product == variant.product; ++nth)
    other = live_variant_on(conn, nth, store);
  return other;
}

TEST(StoreRestore, OneStoreBackToTheTargetWhileTheOthersServe) {
  // The restore reaches the pod as the mover, as a move does (admin/base/pod_connection.hpp).
  ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
  ThrowawayCluster cluster;
  BackupRepository repository(cluster);
  SeededServer env(cluster.url());
  const auto [b_store, b_key] = env.another_store();
  const auto [c_store, c_key] = env.another_store();
  const std::string a = env.store().id;
  auto pod = env.database().connect();
  repository.backup("full");
  wait_past_backup(*pod, repository);

  const VariantRef a_variant = env.live_variant(0);
  const VariantRef a_deleted = another_product(*pod, a, a_variant);
  auto write_a = [&](const std::string& key) { return keyed_write(env.port(), a_variant, env.key().key, key); };
  auto deleted_status = [&] {
    return HttpClient(env.port())
        .get("/v1/products/" + a_deleted.product, {{"Authorization", "Bearer " + env.key().key}})
        .status;
  };
  env.exec("update variants set stock = 100000 where id = $1", a_variant.variant);  // tracked, room to adjust
  HttpResponse before = write_a("restore-before");
  ASSERT_EQ(before.status, 200) << before.body;
  // T: after the first write's commit, before the second's (PostgreSQL's own clock).
  const std::string target = time_now_passed(*pod);
  ASSERT_EQ(write_a("restore-after").status, 200);
  delete_by_mistake(*pod, a, a_deleted.product);
  repository.archive_current_wal();

  BackupRepository::Recovery recovery = repository.recover(target, env.database().name());
  const std::string copy_url = with_database(recovery.cluster->url(), env.database().name());
  pqxx::connection copy(copy_url);
  const auto expected = store_digests(copy, a);
  const auto c_before = store_digests(*pod, c_store.id);

  const VariantRef b_variant = env.live_variant(0, b_store.id);
  env.exec("update variants set stock = 100000 where id = $1", b_variant.variant);
  OtherStoresLoad load(env.port(), b_variant, b_key.key, c_key.key);
  EXPECT_TRUE(eventually([&] { return load.c_reads_at_least(0, 50); }));
  load.stage = 1;

  // Killed at its fence: a write of A in flight (the fence lock held shared, as every API
  // write holds it until its commit) holds the fence back. Nothing is fenced yet; A's
  // dispatch stays paused until a run lifts it.
  {
    auto writer = env.database().connect();
    pqxx::work in_flight(*writer);
    in_flight.exec_params("select pg_advisory_xact_lock_shared(api.fence_lock_class(), hashtext($1))", a);
    const pid_t pid = start_admin({"store", "restore", "--store", a, "--from", copy_url}, env.database().url());
    EXPECT_TRUE(eventually(
        [&] {
          return value_on(*pod,
                          "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like $1",
                          "select api.fence_store_writes%") == "1";
        },
        60s));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    in_flight.abort();
  }
  EXPECT_TRUE(eventually([&] {
    return value_on(*pod, "select count(*) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
                    "select api.fence_store_writes%") == "0";
  }));
  EXPECT_EQ(
      value_on(*pod, "select writes_fenced::text || ',' || dispatch_paused::text from store_fences where store_id = $1",
               a),
      "false,true");

  kill_while_replacing(env.database(), a, a_variant.product, copy_url, env.database().url(), write_a, deleted_status);

  load.stage = 2;
  CliResult restored = run_admin({"store", "restore", "--store", a, "--from", copy_url}, env.database().url());
  load.stage = 3;
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_TRUE(eventually([&] { return load.c_reads_at_least(3, 20); }));  // the load goes on after the lift
  load.stop();
  load.check(*pod, "store restore");
  simdjson::dom::parser parser;
  auto report = parse_json(parser, restored.out);
  std::printf("store restore: %s\n", restored.out.c_str());
  EXPECT_GT(report["rows_restored"].get_int64().value(), 0);

  EXPECT_EQ(store_digests(*pod, a), expected);
  EXPECT_EQ(store_digests(*pod, c_store.id), c_before);
  expect_store_at_target(*pod, write_a, deleted_status);
}

// The same for a store of pod `second` (its own cluster and stanza; `pod add`, stores
// created on it): the pod's stanza recovered to T, the restore reaching that pod as the
// mover, killed while it replaces and run again, while two other stores of that pod are
// served; the directory's store on main untouched.
TEST(StoreRestore, AStoreOfASecondPodBackToTheTargetWhileThatPodServesTheOthers) {
  ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
  ThrowawayCluster main_cluster;
  ThrowawayCluster pod_cluster;
  BackupRepository repository(pod_cluster);
  TestDatabase pod_database{TestDatabase::Schema::empty, pod_cluster.url()};
  SeededServer env(main_cluster.url());
  CliResult added =
      run_admin({"pod", "add", "--name", "second", "--url", api_url(pod_database)}, env.database().url());
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const auto [a, a_key] = seeded_store_on(env.database(), "second", "restore-a");
  const auto [b, b_key] = seeded_store_on(env.database(), "second", "restore-b");
  const auto [c, c_key] = seeded_store_on(env.database(), "second", "restore-c");
  auto pod = pod_database.connect();
  auto main = env.database().connect();
  repository.backup("full");
  wait_past_backup(*pod, repository);

  const VariantRef a_variant = live_variant_on(*pod, 0, a);
  const VariantRef a_deleted = another_product(*pod, a, a_variant);
  auto write_a = [&](const std::string& key) { return keyed_write(env.port(), a_variant, a_key.key, key); };
  auto deleted_status = [&] {
    return HttpClient(env.port())
        .get("/v1/products/" + a_deleted.product, {{"Authorization", "Bearer " + a_key.key}})
        .status;
  };
  const VariantRef b_variant = live_variant_on(*pod, 0, b);
  for (const VariantRef* v : {&a_variant, &b_variant})
    value_on(*pod, "update variants set stock = 100000 where id = $1 returning id", v->variant);
  HttpResponse before = write_a("restore-before");
  ASSERT_EQ(before.status, 200) << before.body;
  ASSERT_EQ(value_on(*pod, "select count(*) from stock_movements where note = $1", "restore-before"), "1")
      << "store A's writes go to pod second";
  const std::string target = time_now_passed(*pod);
  ASSERT_EQ(write_a("restore-after").status, 200);
  delete_by_mistake(*pod, a, a_deleted.product);
  repository.archive_current_wal();

  BackupRepository::Recovery recovery = repository.recover(target, pod_database.name());
  const std::string copy_url = with_database(recovery.cluster->url(), pod_database.name());
  pqxx::connection copy(copy_url);
  const auto expected = store_digests(copy, a);
  const auto c_before = store_digests(*pod, c);
  const auto main_before = store_digests(*main, env.store().id);

  OtherStoresLoad load(env.port(), b_variant, b_key.key, c_key.key);
  EXPECT_TRUE(eventually([&] { return load.c_reads_at_least(0, 50); }));
  load.stage = 1;
  kill_while_replacing(pod_database, a, a_variant.product, copy_url, env.database().url(), write_a, deleted_status);
  load.stage = 2;
  CliResult restored = run_admin({"store", "restore", "--store", a, "--from", copy_url}, env.database().url());
  load.stage = 3;
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_TRUE(eventually([&] { return load.c_reads_at_least(3, 20); }));
  load.stop();
  load.check(*pod, "store restore on pod second");
  std::printf("store restore on pod second: %s\n", restored.out.c_str());
  simdjson::dom::parser parser;
  EXPECT_EQ(std::string(parse_json(parser, restored.out)["pod"].get_string().value()), "second");

  EXPECT_EQ(store_digests(*pod, a), expected);
  EXPECT_EQ(store_digests(*pod, c), c_before);
  EXPECT_EQ(store_digests(*main, env.store().id), main_before);
  expect_store_at_target(*pod, write_a, deleted_status);
}

}  // namespace
}  // namespace storeapi::testing
