// A write is one transaction with one commit, its Idempotency-Key included, so an
// interrupted write leaves nothing behind: killed with SIGKILL while its statement waits,
// the write finishes (or not) inside PostgreSQL as one piece and the retry is refused at
// once while it runs, then replays it; with PostgreSQL restarted under it, the retry runs
// for real as soon as the database is back. On a PostgreSQL cluster of the test's own
// (ThrowawayCluster): restarting it disturbs no other test, and no other database writes
// WAL into the ranges the commit count reads.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "seeded_server.hpp"
#include "support/poll.hpp"
#include "support/throwaway_cluster.hpp"

using namespace storeapi::testing;

namespace {

class WriteTransaction : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new ThrowawayCluster();
    env = new SeededServer(cluster_->url());
    env->exec("create extension pg_walinspect");
    // The production default (the throwaway cluster has it off): a write's commit is on
    // disk when it answers, so the WAL the count reads holds it. New sessions only.
    env->exec("alter database " + env->database().name() + " set synchronous_commit = on");
    env->restart();
  }
  static void TearDownTestSuite() {
    delete env;
    delete cluster_;
    env = nullptr;
    cluster_ = nullptr;
  }

  // A fresh variant with stock 10 for each test.
  void SetUp() override {
    static int nth = 0;
    const VariantRef picked = env->live_variant(nth++);
    product = picked.product;
    variant = picked.variant;
    value("update variants set stock = 10 where id = $1 returning 1", variant);
    events_before = product_events();
  }

  // SQL over a connection of its own: the side connection does not survive a restart.
  template <class... Args>
  static std::string value(const std::string& sql, const Args&... args) {
    auto conn = env->database().connect();
    pqxx::nontransaction work(*conn);
    return work.exec_params1(sql, args...)[0].c_str();
  }

  std::string stock() { return value("select stock from variants where id = $1", variant); }
  std::string movements() { return value("select count(*) from stock_movements where variant_id = $1", variant); }
  // Events of the variant's product since SetUp (other tests' variants may share it).
  long long events() { return product_events() - events_before; }
  long long product_events() {
    return std::stoll(value("select count(*) from events where payload->'data'->'object'->>'id' = $1", product));
  }

  // The request, or status 0 when the connection ended without an answer.
  HttpResponse adjust(const std::string& key) {
    try {
      return env->request("POST", "/v1/products/" + product + "/variants/" + variant + "/stock",
                          R"({"mode":"adjust","quantity":-1})", {{"Idempotency-Key", key}});
    } catch (const std::exception&) {
      return {};
    }
  }

  // Whether one of the server's statements waits on a lock (the variant row held here).
  static bool a_write_waits() {
    return value("select count(*) from pg_stat_activity where application_name = 'storeapi'"
                 " and datname = current_database() and wait_event_type = 'Lock'") == "1";
  }

  // How many transactions changed the write tables while `action` ran: the distinct
  // transaction ids of the WAL records on their relations (0 marks records of no
  // transaction, such as page pruning).
  template <class Action>
  static long long transactions_during(Action action) {
    // From what is on disk: the writes commit synchronously, so theirs is there by the
    // time they answer (the range may start before an asynchronous commit not yet
    // written, such as a dispatcher wake-up, which changes none of these tables).
    const std::string from = value("select pg_current_wal_flush_lsn()::text");
    action();
    return std::stoll(value(
        "select case when pg_current_wal_flush_lsn() <= $1::pg_lsn then 0 else"
        " (select count(distinct r.xid::text) from pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn()) r"
        "   where r.xid::text <> '0' and exists (select 1 from unnest(array['variants', 'products', 'stock_movements', 'events',"
        "     'notifications', 'idempotency_keys']) t"
        "     where r.block_ref like '%/' || pg_relation_filenode(t) || ' %')) end",
        from));
  }

  // How many transactions that wrote nothing but their commit — the dispatchers' wake-ups
  // sent on their own (a NOTIFY is not WAL-logged) — committed while `action`, a write,
  // ran and until its NOTIFY reached `listener`. No delay decides it: whichever
  // transaction carried the NOTIFY, the write's own or a separate wake-up after it, has
  // committed once the NOTIFY arrives, so its commit is in the WAL counted.
  template <class Action>
  static long long separate_wake_ups_during(pqxx::connection& listener, int& notified, Action action) {
    const std::string from = value("select pg_current_wal_insert_lsn()::text");
    notified = 0;
    action();
    EXPECT_TRUE(eventually([&] {
      listener.get_notifs();
      return notified > 0;
    })) << "no NOTIFY for the write";
    // An asynchronous commit reaches the disk within the WAL writer's delay.
    const std::string written = value("select pg_current_wal_insert_lsn()::text");
    EXPECT_TRUE(eventually([&] { return value("select pg_current_wal_flush_lsn() >= $1::pg_lsn", written) == "t"; }));
    return std::stoll(value(
        "select case when $2::pg_lsn <= $1::pg_lsn then 0 else"
        " (with r as (select * from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn))"
        "  select count(*) from r c where c.resource_manager = 'Transaction' and c.record_type = 'COMMIT'"
        "  and not exists (select 1 from r o where o.xid = c.xid and o.start_lsn <> c.start_lsn)) end",
        from, written));
  }

  static inline ThrowawayCluster* cluster_ = nullptr;
  static inline SeededServer* env = nullptr;
  std::string product, variant;
  long long events_before = 0;
};

bool replayed(const HttpResponse& res) { return res.header("Idempotent-Replayed") == "true"; }

// Counts NOTIFYs on the dispatchers' channel.
class WakeUps : public pqxx::notification_receiver {
 public:
  explicit WakeUps(pqxx::connection_base& c) : pqxx::notification_receiver(c, "storeapi_events") {}
  void operator()(const std::string&, int) override { ++count; }
  int count = 0;
};

}  // namespace

TEST_F(WriteTransaction, EveryWriteIsOneTransactionAndAReplayWritesNothing) {
  EXPECT_EQ(transactions_during([&] { ASSERT_EQ(adjust("one-1").status, 200); }), 1);
  EXPECT_EQ(transactions_during([&] {
              ASSERT_EQ(env->request("POST", "/v1/products/" + product + "/variants/" + variant + "/stock",
                                     R"({"mode":"adjust","quantity":-1})")
                            .status,
                        200);
            }),
            1);
  // A validation rejection is stored under its key, in one transaction too.
  EXPECT_EQ(transactions_during([&] {
              ASSERT_EQ(env->request("POST", "/v1/products/" + product + "/variants/" + variant + "/stock",
                                     R"({"mode":"adjust","quantity":0})", {{"Idempotency-Key", "one-2"}})
                            .status,
                        400);
            }),
            1);
  EXPECT_EQ(transactions_during([&] { ASSERT_TRUE(replayed(adjust("one-1"))); }), 0);
  EXPECT_EQ(stock(), "8");
}

// Exactly one commit per write: the write carries the dispatchers' NOTIFY in its own
// transaction instead of a wake-up transaction after it. Seen to fail without it (the
// write never carrying: `|| true` added to WakeTurns::take_turn's first test, so the
// core sends its separate wake-up): 1 separate wake-up counted, not 0.
TEST_F(WriteTransaction, AWriteCarriesTheDispatchersWakeUpInItsOwnCommit) {
  // The earlier tests' writes may still owe a separate wake-up (due within two
  // DispatcherWake intervals): it must not be counted as this write's. A new server process
  // owes none, and once the old one's sessions are gone from PostgreSQL, whatever they
  // were running is over.
  const std::string old_sessions =
      value("select coalesce(string_agg(pid::text, ','), '') from pg_stat_activity"
            " where application_name = 'storeapi' and datname = current_database()");
  env->kill_and_restart();
  EXPECT_TRUE(eventually([&] {
    return value("select count(*) from pg_stat_activity where pid = any('{" + old_sessions + "}'::int[])") == "0";
  })) << "the killed server's sessions " << old_sessions;
  auto listener = env->database().connect();
  WakeUps wake_ups(*listener);
  // Its own NOTIFY: the write's first (on a core idle for more than an interval, the
  // write takes its turn and carries it).
  EXPECT_EQ(separate_wake_ups_during(*listener, wake_ups.count, [&] { ASSERT_EQ(adjust("wake-1").status, 200); }), 0);
}

// Writes that did not carry the NOTIFY are announced by a wake-up of the core's own once
// no write comes to carry it (DispatcherWake's sender, started when the write reports its
// end). On a server of one core and a database of its own, two writes one after the
// other: the first carries the NOTIFY (the core took no turn before it), the second, in
// the same interval, does not, and only the separate wake-up announces it. (Were the
// machine so slow that the second took a turn of its own, its NOTIFY is the second one
// and the test cannot tell; it never fails for that.) Seen to fail without it (the
// report never starting the sender: at_iteration_end dropped from DispatcherWake::ended):
// one NOTIFY, not two.
TEST_F(WriteTransaction, WritesThatDidNotCarryTheWakeUpAreAnnouncedByOneOfItsOwn) {
  SeededServer one_core(cluster_->url(), {{"STOREAPI_THREADS", "1"}});
  auto listener = one_core.database().connect();
  WakeUps wake_ups(*listener);
  const VariantRef picked = one_core.live_variant(0);
  const std::string path = "/v1/products/" + picked.product + "/variants/" + picked.variant + "/stock";
  ASSERT_EQ(one_core.request("POST", path, R"({"mode":"set","quantity":5})").status, 200);
  ASSERT_EQ(one_core.request("POST", path, R"({"mode":"set","quantity":6})").status, 200);
  EXPECT_TRUE(eventually([&] {
    listener->get_notifs();
    return wake_ups.count >= 2;
  })) << wake_ups.count << " NOTIFY";
}

TEST_F(WriteTransaction, AServerKilledDuringAWriteNeverRunsItTwice) {
  auto holder = env->database().connect();
  pqxx::work locked(*holder);
  locked.exec_params("select 1 from variants where id = $1 for update", variant);

  std::thread writer([&] { adjust("killed-1"); });
  const bool waiting = eventually(a_write_waits);
  env->kill_and_restart();
  writer.join();
  ASSERT_TRUE(waiting);

  // The killed server's statement still waits in PostgreSQL with the key claimed: the
  // retry is refused at once (it would hang here if it waited for the claim).
  EXPECT_TRUE(is_error(adjust("killed-1"), 409, "idempotency_in_progress"));
  locked.abort();

  // The orphaned statement goes on and commits; from then on the retry replays it.
  HttpResponse retried;
  ASSERT_TRUE(eventually([&] {
    retried = adjust("killed-1");
    return retried.status != 409;
  }));
  EXPECT_EQ(retried.status, 200) << retried.body;
  EXPECT_TRUE(replayed(retried));
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(movements(), "1");
  EXPECT_EQ(events(), 1);
}

TEST_F(WriteTransaction, ARetryAfterADatabaseRestartRunsAtOnce) {
  std::optional<HttpResponse> first;
  {
    auto holder = env->database().connect();
    pqxx::work locked(*holder);
    locked.exec_params("select 1 from variants where id = $1 for update", variant);
    std::thread writer([&] { first = adjust("restart-1"); });
    const bool waiting = eventually(a_write_waits);
    cluster_->stop();  // fast shutdown: every session ends, the waiting write's too
    writer.join();
    ASSERT_TRUE(waiting);
  }  // the holder's transaction went with its session
  EXPECT_TRUE(is_error(*first, 503, "service_unavailable")) << first->status << " " << first->body;
  cluster_->start();

  // No key was left behind: as soon as the server is connected again, the retry runs.
  HttpResponse retried;
  ASSERT_TRUE(eventually([&] {
    retried = adjust("restart-1");
    return retried.status != 503;
  }));
  EXPECT_EQ(retried.status, 200) << retried.body;
  EXPECT_FALSE(replayed(retried));
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(movements(), "1");
  EXPECT_EQ(events(), 1);
}
