// Dispatchers that stop: killed mid-batch (nothing lost, nothing recorded repeated),
// stopped by SIGTERM (transfers in flight finish), cut off from the database, an outcome
// whose delivery a failover lost.
#include "dispatch_fixture.hpp"

#include <atomic>
#include <map>
#include <set>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Crash = DispatchTest;

TEST_F(Crash, AKilledDispatcherLosesNothingAndRepeatsOnlyDeliveriesNotRecordedAsDelivered) {
  constexpr int kEvents = 30;
  constexpr std::size_t kAnsweredAtOnce = 10;
  std::atomic<bool> hang{true};
  WebhookReceiver receiver;
  receiver.set_behaviour([&](const ReceivedRequest&, std::size_t n) {
    return n >= kAnsweredAtOnce && hang ? Reply{200, 60s} : Reply{};
  });
  add_endpoint(receiver.url());
  for (int i = 0; i < kEvents; ++i) emit_order_event(3000 + i);

  Settings s = settings();
  s["STOREAPI_DISPATCH_CONCURRENCY"] = "5";
  s["STOREAPI_DISPATCH_BATCH"] = "5";
  s["STOREAPI_WEBHOOK_TIMEOUT_MS"] = "3000";
  auto first = std::make_unique<DispatcherProcess>(s);
  // Ten delivered and recorded, five more sent and waiting for their answers: kill now.
  ASSERT_TRUE(receiver.wait_for_count(kAnsweredAtOnce + 5, 30s)) << first->stderr_text();
  first->kill();
  hang = false;

  std::set<std::string> recorded_before;  // webhook-ids whose 2xx was recorded
  auto conn = db_->connect();
  {
    pqxx::work work(*conn);
    for (const auto& row : work.exec("select 'evt_' || replace(event_id::text, '-', '') from webhook_deliveries"
                                     " where status = 'succeeded'"))
      recorded_before.insert(row[0].c_str());
  }
  std::string in_flight = value(
      "select count(*) from webhook_deliveries d where status = 'pending' and attempts > 0 and not exists"
      " (select 1 from webhook_delivery_attempts a where a.delivery_id = d.id and a.attempt = d.attempts)");
  EXPECT_GE(recorded_before.size(), 1u);
  EXPECT_NE(in_flight, "0");

  DispatcherProcess second(settings());
  ASSERT_TRUE(eventually([&] {
    return value("select count(*) from webhook_deliveries where status = 'succeeded'") == std::to_string(kEvents);
  }, 60s)) << second.stderr_text();
  EXPECT_EQ(second.terminate(), 0);

  std::map<std::string, int> received;
  for (const auto& r : receiver.requests()) ++received[r.header("webhook-id")];
  EXPECT_EQ(received.size(), static_cast<std::size_t>(kEvents)) << "an event was lost";
  for (const auto& [id, times] : received) {
    if (recorded_before.contains(id)) {
      EXPECT_EQ(times, 1) << id << " was recorded as delivered, then sent again";
    }
  }
  // The attempts whose outcome died with the first dispatcher are on record as unknown.
  EXPECT_EQ(value("select count(*) from webhook_delivery_attempts where error like 'outcome unknown%'"), in_flight);
}

TEST_F(Crash, SigtermLetsTransfersInFlightFinishAndRecordsThem) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t) { return Reply{200, 1500ms, "slow ok"}; });
  add_endpoint(receiver.url());
  Settings s = settings();
  s["STOREAPI_WEBHOOK_TIMEOUT_MS"] = "10000";
  s["STOREAPI_DISPATCH_LEASE_MS"] = "20000";
  DispatcherProcess dispatcher(s);
  emit_order_event(3100);
  ASSERT_TRUE(receiver.wait_for_count(1, 30s));
  EXPECT_EQ(dispatcher.terminate(), 0);
  // Recorded before the process exited, not left to a lease.
  EXPECT_EQ(value("select status || ',' || last_response from webhook_deliveries"), "succeeded,slow ok");
  EXPECT_NE(dispatcher.stderr_text().find("stopping: finishing 1 transfers in flight"), std::string::npos)
      << dispatcher.stderr_text();
}

TEST_F(Crash, ReconnectsAfterLosingItsDatabaseConnection) {
  WebhookReceiver receiver;
  add_endpoint(receiver.url());
  DispatcherProcess dispatcher(settings());
  emit_order_event(3200);
  ASSERT_TRUE(receiver.wait_for_count(1, 30s));
  // Both of its connections: the outbox's and the LISTEN connection of its wake-ups.
  const std::string dispatcher_connections =
      "from pg_stat_activity where application_name = 'storeapi-dispatch' and datname = current_database()";
  ASSERT_TRUE(eventually([&] { return value("select count(*) " + dispatcher_connections) == "2"; }));
  ASSERT_EQ(value("select count(pg_terminate_backend(pid)) " + dispatcher_connections), "2");
  emit_order_event(3201);
  ASSERT_TRUE(receiver.wait_for_count(2, 30s)) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_NE(dispatcher.stderr_text().find("reconnecting"), std::string::npos) << dispatcher.stderr_text();
}

// A failover can lose a fan-out (committed asynchronously) after the dispatcher claimed
// and sent its delivery: the outcome then names a delivery that is not there. It is
// dropped, the event, fanned out again, is delivered anew, and later outcomes are
// recorded. Without the check in api.record_webhook_attempt the outcome fails its foreign
// key, and with it every batch of outcomes the dispatcher tries to record, for ever.
TEST_F(Crash, AnOutcomeWhoseDeliveryWasLostIsDroppedAndTheEventDeliveredAgain) {
  WebhookReceiver receiver;
  // The first answer comes after the 1 s timeout: that attempt's outcome is a failure.
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) { return n == 0 ? Reply{200, 1500ms} : Reply{}; });
  add_endpoint(receiver.url());
  const std::string lost = emit_order_event(3300);
  DispatcherProcess dispatcher(settings());
  ASSERT_TRUE(receiver.wait_for_count(1, 30s)) << dispatcher.stderr_text();
  // While the attempt is out: the fan-out never happened, as on a promoted standby.
  value("with gone as (delete from webhook_deliveries where event_id = '" + lost + "' returning event_id)"
        " update events set fanned_out_at = null where id in (select event_id from gone) returning 1");
  ASSERT_TRUE(eventually([&] { return dispatcher.stderr_text().find("attempt 1 failed") != std::string::npos; }))
      << dispatcher.stderr_text();
  const std::string later = emit_order_event(3301);
  EXPECT_TRUE(eventually([&] { return delivery_status(lost) == "succeeded" && delivery_status(later) == "succeeded"; },
                         30s))
      << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.stderr_text().find("foreign key"), std::string::npos) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
