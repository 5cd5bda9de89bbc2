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
#include <map>
#include <mutex>
#include <thread>

#include "admin/admin_cli.hpp"
#include "api/seeded_server.hpp"
#include "backup/backup_repository.hpp"
#include "support/poll.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

std::string stock_body(const std::string& note) { return R"({"mode":"adjust","quantity":1,"note":")" + note + R"("})"; }

std::string value_on(pqxx::connection& conn, const std::string& sql, const std::string& arg) {
  pqxx::nontransaction work(conn);
  auto field = work.exec_params1(sql, arg)[0];
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

TEST(StoreRestore, OneStoreBackToTheTargetWhileTheOthersServe) {
  // The restore reaches the pod as the mover, as a move does (admin/base/pod_connection.hpp).
  ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
  ThrowawayCluster cluster;
  BackupRepository repository(cluster);
  SeededServer env(cluster.url());
  const auto [b_store, b_key] = env.another_store();
  const auto [c_store, c_key] = env.another_store();
  const std::string a = env.store().id;
  repository.backup("full");
  // pgBackRest picks the backup to restore by its stop time, in whole seconds, before T:
  // T a second after the backup's end at least.
  const std::string backup_done = env.value("select (clock_timestamp() + interval '1.1 second')::text");
  ASSERT_TRUE(eventually([&] { return env.value("select clock_timestamp() > $1::timestamptz", backup_done) == "t"; }));

  const VariantRef a_variant = env.live_variant(0);
  VariantRef a_deleted;
  for (int nth = 1; a_deleted.product.empty() || a_deleted.product == a_variant.product; ++nth)
    a_deleted = env.live_variant(nth);
  auto write_a = [&](const std::string& key) {
    return HttpClient(env.port())
        .request_json("POST", a_variant.path() + "/stock",
                      {{"Authorization", "Bearer " + env.key().key}, {"Idempotency-Key", key}}, stock_body(key));
  };
  env.exec("update variants set stock = 100000 where id = $1", a_variant.variant);  // tracked, room to adjust
  HttpResponse before = write_a("restore-before");
  ASSERT_EQ(before.status, 200) << before.body;
  // T: after the first write's commit, before the second's (PostgreSQL's own clock).
  const std::string target = env.value("select (clock_timestamp() + interval '1 millisecond')::text");
  ASSERT_TRUE(eventually([&] { return env.value("select clock_timestamp() > $1::timestamptz", target) == "t"; }));
  ASSERT_EQ(write_a("restore-after").status, 200);
  env.exec("set session_replication_role = replica");
  env.exec("delete from stock_movements where store_id = $1", a);
  env.exec("delete from variants where store_id = $1 and product_id = $2", a, a_deleted.product);
  env.exec("delete from products where store_id = $1 and id = $2", a, a_deleted.product);
  env.exec("set session_replication_role = origin");
  repository.archive_current_wal();

  BackupRepository::Recovery recovery = repository.recover(target, env.database().name());
  const std::string copy_url = with_database(recovery.cluster->url(), env.database().name());
  pqxx::connection copy(copy_url);
  const auto expected = store_digests(copy, a);
  auto pod = env.database().connect();
  const auto c_before = store_digests(*pod, c_store.id);

  // The load on the other two stores, until the restore is done.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::map<int, long> b_statuses, c_statuses;
  // C's read latencies (ms) by what went on: 0 nothing yet, 1 the killed runs, 2 the run
  // that finishes, 3 after it. Printed, not asserted (a shared machine's timings).
  std::atomic<int> stage{0};
  std::map<int, std::vector<double>> c_latencies;
  std::vector<std::string> b_acknowledged;
  const VariantRef b_variant = env.live_variant(0, b_store.id);
  env.exec("update variants set stock = 100000 where id = $1", b_variant.variant);
  std::thread b_writer([&] {
    for (int i = 0; !stop; ++i) {
      const std::string key = "restore-b-" + std::to_string(i);
      int status = 0;
      try {
        status =
            HttpClient(env.port(), 10s)
                .request_json("POST", b_variant.path() + "/stock",
                              {{"Authorization", "Bearer " + b_key.key}, {"Idempotency-Key", key}}, stock_body(key))
                .status;
      } catch (const std::exception&) {
      }
      std::lock_guard lock(mutex);
      ++b_statuses[status];
      if (status == 200) b_acknowledged.push_back(key);
    }
  });
  std::thread c_reader([&] {
    while (!stop) {
      int status = 0;
      const int at = stage;
      const auto sent = std::chrono::steady_clock::now();
      try {
        status =
            HttpClient(env.port(), 10s).get("/v1/products?limit=5", {{"Authorization", "Bearer " + c_key.key}}).status;
      } catch (const std::exception&) {
      }
      std::lock_guard lock(mutex);
      ++c_statuses[status];
      c_latencies[at].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent).count());
    }
  });

  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return c_latencies[0].size() >= 50;
  }));
  stage = 1;

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

  // Killed while it replaces A's rows: a row of A locked by the test holds its delete.
  {
    auto holder = env.database().connect();
    pqxx::work lock(*holder);
    lock.exec_params("select 1 from products where store_id = $1 and id = $2 for update", a, a_variant.product);
    const pid_t pid = start_admin({"store", "restore", "--store", a, "--from", copy_url}, env.database().url());
    EXPECT_TRUE(eventually(
        [&] {
          return value_on(*pod,
                          "select count(*) from pg_stat_activity where application_name = 'storeapi-admin'"
                          " and wait_event_type = 'Lock' and query like $1",
                          "delete from %") == "1";
        },
        60s));
    HttpResponse fenced = write_a("restore-during");
    EXPECT_EQ(fenced.status, 503) << fenced.body;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    lock.abort();
  }
  // The killed process's session ends once its delete, no longer held, finishes.
  EXPECT_TRUE(eventually([&] {
    return value_on(*pod, "select count(*) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
                    "delete from %") == "0";
  }));
  EXPECT_EQ(write_a("restore-during").status, 503) << "still fenced after the kill";
  EXPECT_EQ(HttpClient(env.port())
                .get("/v1/products/" + a_deleted.product, {{"Authorization", "Bearer " + env.key().key}})
                .status,
            404)
      << "the killed replace changed nothing";

  stage = 2;
  CliResult restored = run_admin({"store", "restore", "--store", a, "--from", copy_url}, env.database().url());
  stage = 3;
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  std::this_thread::sleep_for(500ms);  // the load goes on a little after the lift
  stop = true;
  b_writer.join();
  c_reader.join();
  for (auto& [at, latencies] : c_latencies) {
    std::sort(latencies.begin(), latencies.end());
    std::printf("store restore: store C's reads %s: %zu, p99 %.1f ms\n",
                at == 0   ? "before"
                : at == 1 ? "during the killed runs"
                : at == 2 ? "during the restore"
                          : "after",
                latencies.size(), latencies.empty() ? 0.0 : latencies[latencies.size() * 99 / 100]);
  }
  simdjson::dom::parser parser;
  auto report = parse_json(parser, restored.out);
  std::printf("store restore: %s\n", restored.out.c_str());
  EXPECT_GT(report["rows_restored"].get_int64().value(), 0);

  EXPECT_EQ(store_digests(*pod, a), expected);
  EXPECT_EQ(store_digests(*pod, c_store.id), c_before);
  for (const auto& [status, count] : b_statuses) EXPECT_EQ(status, 200) << count << " writes of B answered " << status;
  for (const auto& [status, count] : c_statuses) EXPECT_EQ(status, 200) << count << " reads of C answered " << status;
  EXPECT_GT(b_statuses[200], 0);
  EXPECT_GT(c_statuses[200], 0);
  for (const std::string& key : b_acknowledged)
    EXPECT_EQ(value_on(*pod, "select count(*) from stock_movements where note = $1", key), "1") << key;

  const Headers bearer{{"Authorization", "Bearer " + env.key().key}};
  EXPECT_EQ(HttpClient(env.port()).get("/v1/products/" + a_deleted.product, bearer).status, 200);
  HttpResponse replayed = write_a("restore-before");
  EXPECT_EQ(replayed.status, 200) << replayed.body;
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), std::optional<std::string>("true"));
  HttpResponse again = write_a("restore-after");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_FALSE(again.header("Idempotent-Replayed").has_value()) << "a key used after T runs again";
  EXPECT_EQ(value_on(*pod, "select count(*) from stock_movements where note = $1", "restore-after"), "1");
  EXPECT_EQ(value_on(*pod, "select count(*) from stock_movements where note = $1", "restore-during"), "0");
}

}  // namespace
}  // namespace storeapi::testing
