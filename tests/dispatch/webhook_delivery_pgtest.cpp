// Delivery of events to endpoints: signature, payload, subscriptions, rotation, and
// exactly-once delivery with two dispatchers side by side.
#include "admin/webhooks/webhooks.hpp"
#include "dispatch_fixture.hpp"
#include "signature_check.hpp"

#include <set>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Delivery = DispatchTest;

TEST_F(Delivery, PostsTheSignedEventToEverySubscribedEnabledEndpoint) {
  WebhookReceiver all, bookings_only, disabled;
  Endpoint to_all = add_endpoint(all.url());
  Endpoint to_bookings = add_endpoint(bookings_only.url(), "booking.accepted,booking.canceled");
  Endpoint off = add_endpoint(disabled.url());
  {
    auto conn = db_->connect();
    pqxx::work work(*conn);
    admin::disable_webhook(work, off.id);
    work.commit();
  }
  DispatcherProcess dispatcher(settings());

  std::string order_event = emit_order_event(1001);
  ASSERT_TRUE(all.wait_for_count(1, 30s));
  std::string booking_event = emit("booking.accepted", R"({"id":"b1","object":"booking","status":"accepted"})",
                                   R"({"status":"pending"})");
  ASSERT_TRUE(all.wait_for_count(2, 30s));
  ASSERT_TRUE(bookings_only.wait_for_count(1, 30s));
  ASSERT_TRUE(eventually([&] { return value("select count(*) from webhook_deliveries where status = 'succeeded'") == "3"; }));
  EXPECT_EQ(dispatcher.terminate(), 0);

  auto received = all.requests();
  ASSERT_EQ(received.size(), 2u);
  const ReceivedRequest& r = received[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/hooks");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("webhook-id"), event_name(order_event));
  long long sent_at = std::stoll(r.header("webhook-timestamp"));
  EXPECT_LE(std::abs(sent_at - r.received_at_micros / 1'000'000), 300);
  EXPECT_TRUE(signed_with(r, to_all.secret)) << r.header("webhook-signature");
  EXPECT_FALSE(signed_with(r, to_bookings.secret));
  // The bytes sent are the stored payload, whose shape is docs/DESIGN.md's.
  EXPECT_EQ(r.body, value("select payload::text from events where id = '" + order_event + "'"));
  auto event = parser_.parse(r.body).value();
  EXPECT_EQ(std::string_view(event["id"]), event_name(order_event));
  EXPECT_EQ(std::string_view(event["object"]), "event");
  EXPECT_EQ(std::string_view(event["type"]), "order.fulfillment_updated");
  EXPECT_EQ(std::string_view(event["store_id"]), store_.id);
  std::string created_at{std::string_view(event["created_at"])};
  EXPECT_EQ(created_at.size(), 24u) << created_at;
  EXPECT_EQ(created_at.back(), 'Z');
  EXPECT_EQ(std::string_view(event["data"]["object"]["object"]), "order");
  EXPECT_EQ(int64_t(event["data"]["object"]["order_number"]), 1001);
  EXPECT_EQ(std::string_view(event["data"]["previous_attributes"]["fulfillment_status"]), "processing");

  EXPECT_EQ(received[1].header("webhook-id"), event_name(booking_event));
  auto booking_requests = bookings_only.requests();
  ASSERT_EQ(booking_requests.size(), 1u);
  EXPECT_EQ(booking_requests[0].header("webhook-id"), event_name(booking_event));
  EXPECT_TRUE(signed_with(booking_requests[0], to_bookings.secret));
  EXPECT_EQ(disabled.count(), 0u);

  // Every attempt is recorded: time, status, latency, the answer's first bytes.
  EXPECT_EQ(value("select count(*) from webhook_delivery_attempts a join webhook_deliveries d"
                  " on d.store_id = a.store_id and d.id = a.delivery_id"
                  " where a.attempt = 1 and a.response_status = 200 and a.latency_ms >= 0"
                  " and a.response_excerpt = 'ok' and a.error is null and a.attempted_at <= now()"),
            "3");
  EXPECT_EQ(value("select count(*) from events where fanned_out_at is null"), "0");
}

TEST_F(Delivery, SignsWithTheOldSecretTooForADayAfterARotation) {
  WebhookReceiver receiver;
  Endpoint endpoint = add_endpoint(receiver.url());
  std::string rotated;
  {
    auto conn = db_->connect();
    pqxx::work work(*conn);
    rotated = admin::rotate_webhook_secret(work, endpoint.id);
    work.commit();
  }
  DispatcherProcess dispatcher(settings());
  emit_order_event(1002);
  ASSERT_TRUE(receiver.wait_for_count(1, 30s));
  ReceivedRequest r = receiver.requests()[0];
  EXPECT_NE(r.header("webhook-signature").find(' '), std::string::npos) << "two signatures expected";
  EXPECT_TRUE(signed_with(r, rotated));
  EXPECT_TRUE(signed_with(r, endpoint.secret));
  EXPECT_FALSE(signed_with(r, "whsec_" + crypto::base64("some other secret key!!!")));

  // Once the grace period is over only the new secret signs.
  value("update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' returning 1");
  emit_order_event(1003);
  ASSERT_TRUE(receiver.wait_for_count(2, 30s));
  r = receiver.requests()[1];
  EXPECT_EQ(r.header("webhook-signature").find(' '), std::string::npos);
  EXPECT_TRUE(signed_with(r, rotated));
  EXPECT_FALSE(signed_with(r, endpoint.secret));
  EXPECT_EQ(dispatcher.terminate(), 0);
}

TEST_F(Delivery, TwoDispatchersDeliverEveryEventExactlyOnce) {
  constexpr int kEvents = 300;
  WebhookReceiver first, second;
  add_endpoint(first.url());
  add_endpoint(second.url());
  Settings small_batches = settings();
  // What this test proves is that two dispatchers never claim the same delivery. The
  // fixture's compressed 1 s request timeout and 4 s lease would add a second, legitimate
  // source of repeats: on a loaded machine an answer that takes over a second counts as a
  // failure and is retried (Standard Webhooks: at least once, deduplicated by webhook-id),
  // and the receiver sees it twice. With the product's defaults (10 s, 60 s: longer than
  // the test's deadline) a repeat can only be a double claim. Timeouts and lapsed leases have tests of their own (retries, crash).
  small_batches.erase("STOREAPI_WEBHOOK_TIMEOUT_MS");
  small_batches.erase("STOREAPI_DISPATCH_LEASE_MS");
  small_batches["STOREAPI_DISPATCH_BATCH"] = "7";
  small_batches["STOREAPI_DISPATCH_CONCURRENCY"] = "8";
  DispatcherProcess a(small_batches), b(small_batches);

  std::set<std::string> emitted;
  {
    auto conn = db_->connect();
    for (int batch = 0; batch < kEvents / 10; ++batch) {
      pqxx::work work(*conn);
      for (int i = 0; i < 10; ++i)
        emitted.insert(event_name(work.exec_params1("select api.emit_event($1, 'product.updated', $2)",
                                                    store_.id, R"({"object":"product","n":)" +
                                                                   std::to_string(batch * 10 + i) + "}")[0]
                                      .c_str()));
      work.commit();
    }
  }
  ASSERT_TRUE(eventually([&] {
    return value("select count(*) from webhook_deliveries where status = 'succeeded'") == std::to_string(2 * kEvents);
  }, 60s)) << value("select count(*) from webhook_deliveries where status = 'succeeded'");
  EXPECT_EQ(a.terminate(), 0);
  EXPECT_EQ(b.terminate(), 0);

  for (WebhookReceiver* receiver : {&first, &second}) {
    std::set<std::string> ids;
    for (const auto& r : receiver->requests()) ids.insert(r.header("webhook-id"));
    EXPECT_EQ(receiver->count(), static_cast<std::size_t>(kEvents))
        << "a repeat or a loss; the dispatchers logged:\n" << a.stderr_text() << b.stderr_text();
    EXPECT_EQ(ids, emitted);
  }
  EXPECT_EQ(value("select count(*) from webhook_delivery_attempts"), std::to_string(2 * kEvents));
  EXPECT_EQ(value("select max(attempts) from webhook_deliveries"), "1");
}

}  // namespace
}  // namespace storeapi::testing
