// `migrate` never stops traffic (docs/MIGRATIONS.md): a migration queued behind a long
// transaction gives up its lock request after lock_timeout, so the requests queued behind
// it wait no longer than that, and is retried until it gets through; each migration
// commits on its own, so one that cannot get its lock keeps those before it and a second
// run continues; a `-- migration: no-transaction` file runs outside a transaction
// (CREATE INDEX CONCURRENTLY). Seen failing: with the `set lock_timeout` line removed the
// request waits for the long transaction (15 s); with every migration in one transaction
// the first one is lost with the second; without the header's reading CONCURRENTLY fails.
#include "admin/base/errors.hpp"
#include "admin/migrations/migrations.hpp"
#include "admin_cli.hpp"
#include "support/database_exec.hpp"
#include "support/poll.hpp"
#include "support/test_database.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

void run(const TestDatabase& db, const std::string& sql) {
  auto conn = db.connect();
  pqxx::work work(*conn);
  work.exec(sql);
  work.commit();
}

// A long read of `busy` (an open transaction holding its ACCESS SHARE lock), ended by
// release() or, whatever happens, after 15 s.
class LongRead {
 public:
  explicit LongRead(const TestDatabase& db) {
    std::promise<void> holding;
    auto held = holding.get_future();
    thread_ = std::thread([&db, this, holding = std::move(holding)]() mutable {
      auto conn = db.connect();
      pqxx::work work(*conn);
      work.exec("select count(*) from busy");
      holding.set_value();
      std::unique_lock lock(mutex_);
      released_.wait_for(lock, 15s, [this] { return release_; });
      work.commit();
    });
    held.wait();
  }
  ~LongRead() {
    release();
    thread_.join();
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      release_ = true;
    }
    released_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  bool release_ = false;
  std::thread thread_;
};

admin::MigrateOptions quick(std::span<const admin::Migration> migrations, int attempts) {
  admin::MigrateOptions options;
  options.lock_timeout = 300ms;
  options.attempts = attempts;
  options.first_backoff = 50ms;
  options.longest_backoff = 200ms;
  options.migrations = migrations;
  options.repeatable = {};
  return options;
}

bool migration_waits_for_lock(const TestDatabase& db) {
  return value(db, "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                   " and query like 'alter table busy%'") != "0";
}

TEST(MigrateLocks, GivesUpALockWaitAfterLockTimeoutSoQueuedRequestsPassThenRetries) {
  TestDatabase db;
  run(db, "create table busy (id int); insert into busy select generate_series(1, 10)");
  static const admin::Migration migrations[] = {{"900", "900_busy_note", "alter table busy add column note text;\n"}};
  LongRead long_read(db);

  auto migrated = std::async(std::launch::async, [&] {
    auto conn = db.connect();
    return admin::migrate(*conn, {}, quick(migrations, 1000));
  });
  ASSERT_TRUE(eventually([&] { return migration_waits_for_lock(db); }, 10s));

  // A request arriving now queues behind the migration's ACCESS EXCLUSIVE request: it
  // passes once that request gives up (300 ms), long before the long read ends (15 s).
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(value(db, "select count(*) from busy"), "10");
  const auto waited = std::chrono::steady_clock::now() - asked;
  EXPECT_LT(waited, 5s) << "the request waited for the long read, not for lock_timeout";

  long_read.release();
  ASSERT_EQ(migrated.wait_for(30s), std::future_status::ready);
  const admin::MigrationReport report = migrated.get();
  EXPECT_EQ(report.applied, std::vector<std::string>{"900_busy_note"});
  EXPECT_EQ(value(db, "select count(*) from information_schema.columns where table_name = 'busy'"
                      " and column_name = 'note'"), "1");
  EXPECT_EQ(value(db, "select count(*) from schema_migrations where version = '900'"), "1");
}

TEST(MigrateLocks, KeepsTheMigrationsBeforeOneThatRanOutOfAttemptsAndContinuesOnTheNextRun) {
  TestDatabase db;
  run(db, "create table busy (id int)");
  static const admin::Migration migrations[] = {{"900", "900_first", "create table first_one (id int);\n"},
                                                {"901", "901_busy_note", "alter table busy add column note text;\n"}};
  {
    LongRead long_read(db);
    auto conn = db.connect();
    try {
      admin::migrate(*conn, {}, quick(migrations, 2));
      FAIL() << "migrate got a lock the long read holds";
    } catch (const admin::CommandError& e) {
      EXPECT_NE(std::string(e.what()).find("901_busy_note"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("storeapi-admin migrate"), std::string::npos) << e.what();
    }
    EXPECT_EQ(value(db, "select string_agg(version, ',') from schema_migrations where version >= '900'"), "900");
    EXPECT_EQ(value(db, "select count(*) from pg_tables where tablename = 'first_one'"), "1");
  }
  auto conn = db.connect();
  EXPECT_EQ(admin::migrate(*conn, {}, quick(migrations, 2)).applied, std::vector<std::string>{"901_busy_note"});
}

// Another `migrate` holding the migrations' advisory lock is waited for, however long past
// lock_timeout: that wait holds no request. Fails when the timeout is set before the lock
// is taken (the second run gives up after 300 ms).
TEST(MigrateLocks, WaitsForAConcurrentMigrateLongerThanLockTimeout) {
  TestDatabase db;
  static const admin::Migration migrations[] = {{"900", "900_after", "create table after_the_other (id int);\n"}};
  auto other = db.connect();
  pqxx::nontransaction(*other).exec("select pg_advisory_lock(x'73746f7265617069'::bigint)");
  auto migrated = std::async(std::launch::async, [&] {
    auto conn = db.connect();
    return admin::migrate(*conn, {}, quick(migrations, 1));
  });
  const bool waited = eventually([&] {
    return value(db, "select count(*) from pg_stat_activity where wait_event = 'advisory'"
                     " and now() - query_start > interval '900 ms'") != "0";
  }, 10s);
  pqxx::nontransaction(*other).exec("select pg_advisory_unlock(x'73746f7265617069'::bigint)");
  EXPECT_TRUE(waited) << "migrate stopped waiting for the other one";
  ASSERT_EQ(migrated.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(migrated.get().applied, std::vector<std::string>{"900_after"});
}

TEST(MigrateLocks, RunsANoTransactionMigrationOutsideATransaction) {
  TestDatabase db;
  run(db, "create table busy (id int)");
  static const admin::Migration migrations[] = {
      {"900", "900_busy_index",
       "-- migration: no-transaction\n"
       "-- CREATE INDEX CONCURRENTLY cannot run in a transaction; dropped first so a rerun\n"
       "-- replaces an index a failed attempt left invalid.\n"
       "drop index concurrently if exists busy_id;\n"
       "create index concurrently busy_id on busy (id);\n"}};
  EXPECT_TRUE(admin::runs_outside_transaction(migrations[0].sql));
  auto conn = db.connect();
  EXPECT_EQ(admin::migrate(*conn, {}, quick(migrations, 2)).applied, std::vector<std::string>{"900_busy_index"});
  EXPECT_EQ(value(db, "select bool_and(indisvalid)::text from pg_index where indexrelid = 'busy_id'::regclass"),
            "true");
}

// The rendering's file (sql/functions/10_render.sql), applied again while the fleet writes,
// re-creates its triggers in a variant write's lock order: the variants, then the
// products. A write that has changed its variant (its table's ROW EXCLUSIVE lock held)
// and is about to change its product finds the products free while `migrate` waits for
// the variants, instead of deadlocking with it (a write answered 500 during a rolling
// upgrade). Seen failing: with the products' trigger re-created first, the NOWAIT below
// finds the products locked.
TEST(MigrateLocks, AppliesTheRenderingAgainInAVariantWritesLockOrder) {
  TestDatabase db;
  run(db, "delete from schema_functions where name = '10_render'");
  auto writer = db.connect();
  pqxx::work write(*writer);
  write.exec("lock table variants in row exclusive mode");
  auto migrated = std::async(std::launch::async, [&] {
    auto conn = db.connect();
    admin::MigrateOptions options;
    options.lock_timeout = 20s;
    return admin::migrate(*conn, {}, options);
  });
  const bool waits = eventually([&] {
    return value(db, "select count(*) from pg_stat_activity where datname = current_database()"
                     " and wait_event_type = 'Lock'") != "0";
  }, 10s);
  std::string product_lock = "taken";
  try {
    write.exec("lock table products in row exclusive mode nowait");
  } catch (const pqxx::sql_error& e) {
    product_lock = e.what();
  }
  write.abort();
  EXPECT_TRUE(waits) << "migrate did not wait for the variants";
  EXPECT_EQ(product_lock, "taken");
  ASSERT_EQ(migrated.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(migrated.get().applied, std::vector<std::string>{"functions/10_render"});
}

// A store whose documents the next `migrate` finds stale: the rendering's file to be applied
// again, and the stored documents of the orders at `places` (in key order) changed behind
// their trigger's back (as a changed rendering leaves every one). Returns their ids.
std::vector<std::string> stale_orders(TestDatabase& db, std::initializer_list<int> places) {
  TestStore store = db.create_store();
  CliResult seeded = run_admin({"seed", "--store", store.id, "--orders", "30", "--products", "5", "--customers", "5",
                                "--bookings", "5"}, db.url());
  EXPECT_EQ(seeded.exit_code, 0) << seeded.err;
  std::vector<std::string> ids;
  for (int place : places) {
    ids.push_back(value(db, "select id from orders order by store_id, id limit 1 offset " + std::to_string(place)));
    run(db, "alter table orders disable trigger render_doc;"
            " update orders set doc = '{\"stale\":true}' where id = '" + ids.back() + "';"
            " alter table orders enable trigger render_doc");
  }
  run(db, "delete from schema_functions where name = '10_render'");
  EXPECT_EQ(value(db, "select count(*) from api.stale_documents"), std::to_string(places.size()));
  return ids;
}

bool rendered(const TestDatabase& db, const std::string& id) {
  return value(db, "select doc = api.order_json(o) from orders o where id = '" + id + "'") == "t";
}

// A write in flight on `id`'s order: its row lock held until release() (or the end).
class RowWrite {
 public:
  RowWrite(const TestDatabase& db, const std::string& id) : conn_(db.connect()), work_(*conn_) {
    work_.exec("select 1 from orders where id = '" + id + "' for update");
  }
  void release() { work_.commit(); }

 private:
  std::unique_ptr<pqxx::connection> conn_;
  pqxx::work work_;
};

bool rendering_waits_for_a_row(const TestDatabase& db) {
  return value(db, "select count(*) from pg_stat_activity where datname = current_database()"
                   " and wait_event_type = 'Lock' and wait_event = 'transactionid'") != "0";
}

// The rendering's file, applied again, renders the documents it made stale after it has
// committed, outside the locks its re-created triggers take until then: a write to any
// table with stored documents goes on while the re-render waits for a row (a million
// orders re-rendered inside the file's transaction held every write for 53 s,
// bench/RESULTS.md "Upgrade"). Seen failing: with the re-render back inside the file
// (`select api.render_documents(null)` at its end), the NOWAITs find the tables locked.
TEST(MigrateLocks, RendersStaleDocumentsAgainAfterTheRenderingCommitsOutsideItsTriggersLocks) {
  TestDatabase db;
  const std::string id = stale_orders(db, {7})[0];
  RowWrite write(db, id);
  auto migrated = std::async(std::launch::async, [&] {
    auto conn = db.connect();
    admin::MigrateOptions options;
    options.lock_timeout = 20s;
    return admin::migrate(*conn, {}, options);
  });
  const bool waits = eventually([&] { return rendering_waits_for_a_row(db); }, 10s);
  std::vector<std::string> locked;
  {
    auto conn = db.connect();
    pqxx::work other(*conn);
    for (const char* table : {"orders", "products", "customers", "bookings", "variants"}) {
      try {
        pqxx::subtransaction lock(other);
        lock.exec(std::string("lock table ") + table + " in row exclusive mode nowait");
        lock.commit();
      } catch (const pqxx::sql_error&) {
        locked.emplace_back(table);
      }
    }
  }
  write.release();
  EXPECT_TRUE(waits) << "the re-render did not meet the write's row";
  EXPECT_EQ(locked, std::vector<std::string>{}) << "writes would wait for the re-render";
  ASSERT_EQ(migrated.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(migrated.get().applied, std::vector<std::string>{"functions/10_render"});
  EXPECT_EQ(value(db, "select count(*) from api.stale_documents"), "0");
  EXPECT_TRUE(rendered(db, id));
}

// A re-render that ran out of attempts leaves the rendering's file unrecorded, so the next
// `migrate` applies it again and renders what is still stale. Seen failing: with the file
// recorded in its own transaction, the second run skips it and the order stays stale.
TEST(MigrateLocks, RendersAgainOnTheNextRunWhenTheReRenderWasCutShort) {
  TestDatabase db;
  const std::string id = stale_orders(db, {7})[0];
  {
    RowWrite write(db, id);
    auto conn = db.connect();
    admin::MigrateOptions options = quick(admin::embedded_migrations(), 1);
    options.repeatable = admin::embedded_repeatable();
    EXPECT_THROW(admin::migrate(*conn, {}, options), admin::CommandError);
    write.release();
  }
  EXPECT_EQ(value(db, "select count(*) from schema_functions where name = '10_render'"), "0");
  auto conn = db.connect();
  EXPECT_EQ(admin::migrate(*conn).applied, std::vector<std::string>{"functions/10_render"});
  EXPECT_EQ(value(db, "select count(*) from api.stale_documents"), "0");
}

// Each batch of the re-render commits: what it rendered is there for everyone while a later
// batch waits for a write's row, and the write waits at most for one batch. Seen failing:
// without the COMMIT, the first order stays stale to every other session until the end.
TEST(MigrateLocks, TheReRenderCommitsEachBatch) {
  TestDatabase db;
  const std::vector<std::string> ids = stale_orders(db, {0, 20});
  RowWrite write(db, ids[1]);
  auto rendering = std::async(std::launch::async, [&] {
    auto conn = db.connect();
    pqxx::nontransaction(*conn).exec("call api.render_stale_documents(null, 5, true)");
  });
  const bool waits = eventually([&] { return rendering_waits_for_a_row(db); }, 10s);
  const bool first_batch_committed = rendered(db, ids[0]);
  write.release();
  EXPECT_TRUE(waits) << "the re-render did not meet the write's row";
  EXPECT_TRUE(first_batch_committed);
  ASSERT_EQ(rendering.wait_for(30s), std::future_status::ready);
  rendering.get();
  EXPECT_EQ(value(db, "select count(*) from api.stale_documents"), "0");
}

}  // namespace
}  // namespace storeapi::testing
