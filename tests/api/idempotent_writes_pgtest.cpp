// The Idempotency-Key matrix against the real server: first run, replay (also after a
// restart), mismatch, in progress and abandoned keys, stored rejections, released 5xx (a
// failing statement, a lost connection), expiry and purge, concurrency — and that a
// replay runs nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "seeded_server.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"
#include "support/run_together.hpp"

using namespace storeapi::testing;

namespace {

class Idempotency : public SeededServerSuite {
 protected:

  // A fresh variant with `stock` for each test.
  void SetUp() override {
    static int nth = 0;
    const VariantRef picked = env->live_variant(nth++);
    product = picked.product;
    variant = picked.variant;
    env->exec("update variants set stock = 10 where id = $1", variant);
    movements_before = all_movements();
    events_before = all_events();
  }

  std::string stock_path() const { return "/v1/products/" + product + "/variants/" + variant + "/stock"; }
  HttpResponse adjust(const std::string& key, int quantity = -1) {
    return env->request("POST", stock_path(), R"({"mode":"adjust","quantity":)" + std::to_string(quantity) + "}",
                        {{"Idempotency-Key", key}});
  }
  std::string stock() { return env->value("select stock from variants where id = $1", variant); }
  // Since SetUp.
  long long movements() { return all_movements() - movements_before; }
  long long events() { return all_events() - events_before; }
  long long all_movements() {
    return env->count("select count(*) from stock_movements where variant_id = $1", variant);
  }
  long long all_events() { return env->events_of(product); }
  std::string key_state(const std::string& key) {
    return env->value("select coalesce((select state from idempotency_keys where store_id = $1 and key = $2),"
                      " 'absent')", env->store().id, key);
  }

  std::string product, variant;
  long long movements_before = 0, events_before = 0;
};

bool replayed(const HttpResponse& res) { return res.header("Idempotent-Replayed") == "true"; }

}  // namespace

TEST_F(Idempotency, ARetryReplaysTheFirstResultAndRunsNothing) {
  HttpResponse first = adjust("replay-1");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_FALSE(first.header("Idempotent-Replayed"));
  EXPECT_EQ(key_state("replay-1"), "completed");

  // Same body with other whitespace and member order: the same request.
  HttpResponse again = env->request("POST", stock_path(), "{ \"quantity\" : -1,\n \"mode\" : \"adjust\" }",
                                    {{"Idempotency-Key", "replay-1"}});
  EXPECT_EQ(again.status, 200);
  EXPECT_TRUE(replayed(again));
  EXPECT_EQ(again.body, first.body);
  EXPECT_NE(again.header("Request-Id"), first.header("Request-Id"));

  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(movements(), 1);
  EXPECT_EQ(events(), 1);
}

TEST_F(Idempotency, OutcomesAreCountedInMetrics) {
  auto outcome = [&](const std::string& m, const char* which) {
    return std::max(0.0, metric_value(m, std::string(R"(storeapi_idempotency_outcomes_total{outcome=")") + which + "\"}"));
  };
  std::string before = scrape_metrics(env->metrics_port());
  ASSERT_EQ(adjust("metrics-1").status, 200);
  ASSERT_EQ(adjust("metrics-1").status, 200);      // replay
  ASSERT_EQ(adjust("metrics-1", -2).status, 409);  // same key, another body: mismatch
  std::string after = scrape_metrics(env->metrics_port());
  EXPECT_EQ(outcome(after, "run") - outcome(before, "run"), 1);
  EXPECT_EQ(outcome(after, "replay") - outcome(before, "replay"), 1);
  EXPECT_EQ(outcome(after, "mismatch") - outcome(before, "mismatch"), 1);
}

TEST_F(Idempotency, WithoutAKeyEveryRequestRuns) {
  for (int i = 0; i < 2; ++i) {
    HttpResponse res = env->request("POST", stock_path(), R"({"mode":"adjust","quantity":-1})");
    EXPECT_EQ(res.status, 200);
    EXPECT_FALSE(res.header("Idempotent-Replayed"));
  }
  EXPECT_EQ(stock(), "8");
  EXPECT_EQ(events(), 2);
}

TEST_F(Idempotency, SameKeyForAnotherRequestIsAMismatch) {
  ASSERT_EQ(adjust("mismatch-1").status, 200);
  // Another body, another endpoint, another resource: refused, nothing runs.
  EXPECT_TRUE(is_error(adjust("mismatch-1", -2), 409, "idempotency_mismatch"));
  EXPECT_TRUE(is_error(env->request("PATCH", "/v1/products/" + product + "/variants/" + variant,
                                    R"({"mode":"adjust","quantity":-1})", {{"Idempotency-Key", "mismatch-1"}}),
                       409, "idempotency_mismatch"));
  const std::string order = env->value("select id from orders where store_id = $1 limit 1", env->store().id);
  EXPECT_TRUE(is_error(env->request("POST", "/v1/orders/" + order + "/fulfillment",
                                    R"({"fulfillment_status":"canceled"})", {{"Idempotency-Key", "mismatch-1"}}),
                       409, "idempotency_mismatch"));
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(events(), 1);
  EXPECT_EQ(key_state("mismatch-1"), "completed");
}

TEST_F(Idempotency, KeysAreScopedToTheStore) {
  ASSERT_EQ(adjust("shared-key").status, 200);
  auto [other, other_key] = env->another_store();
  HttpResponse theirs = env->request_as(other_key.key, "POST", env->live_variant(0, other.id).path() + "/stock",
                                       R"({"mode":"set","quantity":3})", {{"Idempotency-Key", "shared-key"}});
  EXPECT_EQ(theirs.status, 200) << theirs.body;
  EXPECT_FALSE(theirs.header("Idempotent-Replayed"));
  EXPECT_EQ(env->count("select count(*) from idempotency_keys where key = 'shared-key'"), 2);
}

TEST_F(Idempotency, RejectionsAreStoredAndReplayedWithTheNewRequestId) {
  env->exec("update variants set stock = 0 where id = $1", variant);
  HttpResponse refused = adjust("reject-1");
  ASSERT_TRUE(is_error(refused, 409, "insufficient_stock", "quantity"));
  EXPECT_EQ(key_state("reject-1"), "completed");
  // Even once stock is there, the retry gets the stored answer.
  env->exec("update variants set stock = 5 where id = $1", variant);
  HttpResponse again = adjust("reject-1");
  EXPECT_TRUE(is_error(again, 409, "insufficient_stock", "quantity"));  // request_id = the new Request-Id
  EXPECT_TRUE(replayed(again));
  EXPECT_NE(Json(again.body).get("/error/request_id"), Json(refused.body).get("/error/request_id"));
  EXPECT_EQ(Json(again.body).get("/error/message"), Json(refused.body).get("/error/message"));
  EXPECT_EQ(stock(), "5");
  EXPECT_EQ(events(), 0);

  // Validation rejections too, bound to the raw body.
  HttpResponse invalid = env->request("POST", stock_path(), R"({"mode":"adjust","quantity":0})",
                                      {{"Idempotency-Key", "reject-2"}});
  ASSERT_TRUE(is_error(invalid, 400, "parameter_invalid", "quantity"));
  HttpResponse invalid_again = env->request("POST", stock_path(), R"({"mode":"adjust","quantity":0})",
                                            {{"Idempotency-Key", "reject-2"}});
  EXPECT_TRUE(is_error(invalid_again, 400, "parameter_invalid", "quantity"));
  EXPECT_TRUE(replayed(invalid_again));
  EXPECT_EQ(Json(invalid_again.body).get("/error/message"), Json(invalid.body).get("/error/message"));
  EXPECT_TRUE(is_error(adjust("reject-2"), 409, "idempotency_mismatch"));
  HttpResponse unsupported = env->request("POST", stock_path(), "mode=set", {{"Idempotency-Key", "reject-3"},
                                                                             {"Content-Type", "text/plain"}});
  ASSERT_TRUE(is_error(unsupported, 415, "unsupported_media_type"));
  EXPECT_TRUE(replayed(env->request("POST", stock_path(), "mode=set", {{"Idempotency-Key", "reject-3"},
                                                                       {"Content-Type", "text/plain"}})));
}

// A stored answer the server cannot read (a damaged row) is a 500, and its cause is on
// stderr once, with the request id, like every 500.
TEST_F(Idempotency, AnUnreadableStoredErrorIs500LoggedWithTheRequestId) {
  env->exec("update variants set stock = 0 where id = $1", variant);
  ASSERT_TRUE(is_error(adjust("damaged-1"), 409, "insufficient_stock", "quantity"));
  env->exec("update idempotency_keys set response_body = 'not json' where store_id = $1 and key = 'damaged-1'",
            env->store().id);
  HttpResponse again = adjust("damaged-1");
  ASSERT_TRUE(is_error(again, 500, "internal_error"));
  const std::string line = Json(again.body).get("/error/request_id") + ": unreadable stored error: not json\n";
  EXPECT_TRUE(eventually([&] { return env->server_stderr().find(line) != std::string::npos; }))
      << env->server_stderr();
}

TEST_F(Idempotency, TheKeyItselfMustBeWellFormed) {
  const std::string fingerprint = env->database().fingerprint();
  for (const std::string& bad : {std::string(), std::string(256, 'k'), std::string("caf\xC3\xA9")}) {
    EXPECT_TRUE(is_error(adjust(bad), 400, "parameter_invalid", "Idempotency-Key")) << bad.size();
  }
  // A body problem is reported first (and not stored: there is no usable key).
  EXPECT_TRUE(is_error(env->request("POST", stock_path(), "{", {{"Idempotency-Key", ""}}), 400, "invalid_json"));
  EXPECT_EQ(env->database().fingerprint(), fingerprint);
  EXPECT_EQ(adjust(std::string(255, 'k')).status, 200);
  // Reads ignore the header.
  EXPECT_EQ(env->request("GET", "/v1/store", {}, {{"Idempotency-Key", ""}}).status, 200);
}

TEST_F(Idempotency, AKeyStillInProgressIsRefusedUntilAbandoned) {
  // A request that took the key and never finished (a crash between the two steps):
  // the row is in progress under another token.
  ASSERT_EQ(adjust("crashed-1").status, 200);
  env->exec("update idempotency_keys set state = 'in_progress', owner_token = gen_random_uuid(),"
            " response_status = null, response_body = null, completed_at = null, started_at = now()"
            " where store_id = $1 and key = 'crashed-1'", env->store().id);
  EXPECT_TRUE(is_error(adjust("crashed-1"), 409, "idempotency_in_progress"));
  EXPECT_EQ(stock(), "9");

  // After 60 s it counts as abandoned: the retry runs, once.
  env->exec("update idempotency_keys set started_at = now() - interval '61 seconds'"
            " where store_id = $1 and key = 'crashed-1'", env->store().id);
  HttpResponse taken_over = adjust("crashed-1");
  EXPECT_EQ(taken_over.status, 200) << taken_over.body;
  EXPECT_FALSE(taken_over.header("Idempotent-Replayed"));
  EXPECT_EQ(stock(), "8");
  EXPECT_TRUE(replayed(adjust("crashed-1")));
  EXPECT_EQ(stock(), "8");
  EXPECT_EQ(events(), 2);
}

TEST_F(Idempotency, ConcurrentRequestsWithOneKeyRunOnce) {
  constexpr int kRequests = 12;
  std::atomic<int> ran{0}, replays{0}, in_progress{0}, other{0};
  run_together(kRequests, [&](int) {
    HttpResponse res = adjust("together-1");
    if (res.status == 200 && !replayed(res)) {
      ++ran;
    } else if (res.status == 200) {
      ++replays;
    } else if (is_error(res, 409, "idempotency_in_progress")) {
      ++in_progress;
    } else {
      ++other;
    }
  });
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(replays + in_progress, kRequests - 1);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(events(), 1);
}

TEST_F(Idempotency, ReplaysSurviveARestart) {
  HttpResponse first = adjust("restart-1");
  ASSERT_EQ(first.status, 200);
  env->restart();
  HttpResponse again = adjust("restart-1");
  EXPECT_EQ(again.status, 200);
  EXPECT_TRUE(replayed(again));
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(events(), 1);
}

TEST_F(Idempotency, AServerErrorReleasesTheKey) {
  // Make this variant's stock history refuse writes: the write fails inside the database.
  env->exec("create function test_refuse() returns trigger language plpgsql as $$"
            " begin raise exception 'refused by the test'; end $$");
  env->exec("create trigger refuse before insert on stock_movements for each row"
            " when (new.note = 'explode') execute function test_refuse()");
  const std::string body = R"({"mode":"adjust","quantity":-1,"note":"explode"})";
  HttpResponse failed = env->request("POST", stock_path(), body, {{"Idempotency-Key", "fail-1"}});
  EXPECT_TRUE(is_error(failed, 500, "internal_error"));
  EXPECT_EQ(key_state("fail-1"), "absent");
  EXPECT_EQ(stock(), "10");
  EXPECT_EQ(events(), 0);

  env->exec("drop trigger refuse on stock_movements");
  env->exec("drop function test_refuse()");
  HttpResponse retried = env->request("POST", stock_path(), body, {{"Idempotency-Key", "fail-1"}});
  EXPECT_EQ(retried.status, 200) << retried.body;
  EXPECT_FALSE(retried.header("Idempotent-Replayed"));
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(events(), 1);
}

TEST_F(Idempotency, ALostDatabaseConnectionReleasesTheKey) {
  // The write takes its key (first segment, committed), then waits for the variant's row
  // lock held here; its backend is terminated while it waits, so the server loses the
  // connection mid-unit and answers 503. The key must go free for the retry.
  auto holder = env->database().connect();
  pqxx::work locked(*holder);
  locked.exec_params("select 1 from variants where id = $1 for update", variant);

  HttpResponse lost;
  std::thread writer([&] { lost = adjust("lost-1"); });
  const bool waiting = eventually([&] {
    return env->count("select count(*) from pg_stat_activity where application_name = 'storeapi'"
                      " and datname = current_database() and wait_event_type = 'Lock'") == 1;
  });
  if (waiting)
    env->exec("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'storeapi'"
              " and datname = current_database() and wait_event_type = 'Lock'");
  writer.join();
  locked.abort();
  ASSERT_TRUE(waiting);

  EXPECT_TRUE(is_error(lost, 503, "service_unavailable"));
  EXPECT_TRUE(lost.header("Retry-After"));
  EXPECT_TRUE(lost.header("RateLimit-Limit"));  // an authenticated answer, 503 included
  EXPECT_EQ(key_state("lost-1"), "absent");
  EXPECT_EQ(stock(), "10");

  HttpResponse retried = adjust("lost-1");
  EXPECT_EQ(retried.status, 200) << retried.body;
  EXPECT_FALSE(replayed(retried));
  EXPECT_EQ(stock(), "9");
  EXPECT_EQ(events(), 1);
}

TEST_F(Idempotency, KeysExpireAfterADayAndArePurged) {
  ASSERT_EQ(adjust("old-1").status, 200);
  env->exec("update idempotency_keys set started_at = started_at - interval '25 hours'"
            " where store_id = $1 and key = 'old-1'", env->store().id);
  // Expired: the key is free again, even for another request.
  HttpResponse reused = adjust("old-1", -2);
  EXPECT_EQ(reused.status, 200) << reused.body;
  EXPECT_FALSE(reused.header("Idempotent-Replayed"));
  EXPECT_EQ(stock(), "7");

  // The purge deletes keys taken over 24 h ago, completed or abandoned, in batches.
  env->exec("update idempotency_keys set started_at = started_at - interval '25 hours'"
            " where store_id = $1 and key = 'old-1'", env->store().id);
  env->exec("insert into idempotency_keys (store_id, key, fingerprint, state, owner_token, started_at)"
            " values ($1, 'abandoned-1', 'x', 'in_progress', gen_random_uuid(), now() - interval '30 hours'),"
            " ($1, 'recent-1', 'x', 'in_progress', gen_random_uuid(), now() - interval '23 hours')",
            env->store().id);
  const long long expired = env->count("select count(*) from idempotency_keys where started_at < now() - interval "
                                       "'24 hours'");
  EXPECT_GE(expired, 2);
  EXPECT_EQ(env->count("select api.purge_idempotency_keys(1)"), 1);
  long long purged = 1;
  for (long long n = 1; n > 0; purged += n) n = env->count("select api.purge_idempotency_keys(1000)");
  EXPECT_EQ(purged, expired);
  EXPECT_EQ(key_state("old-1"), "absent");
  EXPECT_EQ(key_state("abandoned-1"), "absent");
  EXPECT_EQ(key_state("recent-1"), "in_progress");
}

TEST_F(Idempotency, ReplayedBookingAndOrderWritesNotifyOnce) {
  const std::string booking = env->value("select id from bookings where store_id = $1 order by id limit 1",
                                         env->store().id);
  env->exec("update bookings set status = 'pending' where id = $1", booking);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(env->request("POST", "/v1/bookings/" + booking + "/accept", {}, {{"Idempotency-Key", "accept-1"}})
                  .status,
              200);
  }
  EXPECT_EQ(env->count("select count(*) from notifications where data->>'booking_id' = $1", booking), 1);
  EXPECT_EQ(env->count("select count(*) from events where payload->'data'->'object'->>'id' = $1", booking), 1);

  const std::string order = env->value("select id from orders where store_id = $1 order by id limit 1",
                                       env->store().id);
  env->exec("update orders set fulfillment_status = 'pending' where id = $1", order);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(env->request("POST", "/v1/orders/" + order + "/fulfillment", R"({"fulfillment_status":"shipped"})",
                           {{"Idempotency-Key", "ship-1"}})
                  .status,
              200);
  }
  EXPECT_EQ(env->count("select count(*) from notifications where data->>'order_id' = $1", order), 1);
  EXPECT_EQ(env->count("select count(*) from events where payload->'data'->'object'->>'id' = $1", order), 1);
}

// A write renders its resource once; the response, the event's data.object and
// the stored answer a retry replays are those same bytes (not a re-serialisation of them).
TEST_F(Idempotency, ResponseEventObjectAndReplayAreTheSameBytes) {
  const auto same_bytes = [](const std::string& method, const std::string& path, const std::string& body,
                             const std::string& key, const std::string& object_id) {
    SCOPED_TRACE(path);
    HttpResponse first = env->request(method, path, body, {{"Idempotency-Key", key}});
    ASSERT_EQ(first.status, 200) << first.body;
    EXPECT_EQ(env->value("select (payload->'data'->'object')::text from events"
                         " where payload->'data'->'object'->>'id' = $1 order by created_at desc limit 1",
                         object_id),
              first.body);
    HttpResponse replay = env->request(method, path, body, {{"Idempotency-Key", key}});
    EXPECT_TRUE(replayed(replay));
    EXPECT_EQ(replay.body, first.body);
  };

  const std::string order = env->value("select id from orders where store_id = $1 order by id offset 2 limit 1",
                                       env->store().id);
  env->exec("update orders set fulfillment_status = 'pending' where id = $1", order);
  const std::string updated_before = env->value("select api.j_ts(updated_at) from orders where id = $1", order);
  same_bytes("POST", "/v1/orders/" + order + "/fulfillment", R"({"fulfillment_status":"processing"})",
             "same-bytes-order", order);
  // What changed, in the document's field order, with the old document's bytes.
  EXPECT_EQ(env->value("select (payload->'data'->'previous_attributes')::text from events"
                       " where payload->'data'->'object'->>'id' = $1",
                       order),
            R"({"fulfillment_status":"pending","updated_at":)" + updated_before + "}");

  const std::string booking = env->value("select id from bookings where store_id = $1 order by id offset 2 limit 1",
                                         env->store().id);
  env->exec("update bookings set status = 'pending' where id = $1", booking);
  same_bytes("POST", "/v1/bookings/" + booking + "/accept", "", "same-bytes-booking", booking);

  // PATCH of a variant answers with its product, the event's object.
  same_bytes("PATCH", "/v1/products/" + product + "/variants/" + variant, R"({"price":"987.65"})",
             "same-bytes-variant", product);
}
