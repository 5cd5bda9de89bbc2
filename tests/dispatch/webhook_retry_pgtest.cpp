// Failed deliveries: retries after 5xx answers, timeouts and refused connections on a
// compressed schedule ("1,1": two retries about a second apart), redirects not followed,
// the disabling rule, and redelivery.
#include "admin/base/json.hpp"
#include "admin/webhooks/deliveries.hpp"
#include "admin/webhooks/webhooks.hpp"
#include "dispatch_fixture.hpp"
#include "signature_check.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Retries = DispatchTest;

TEST_F(Retries, RetriesAfterServerErrorsUntilTheReceiverAccepts) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) {
    return n < 2 ? Reply{500, 0ms, "boom"} : Reply{};
  });
  Endpoint endpoint = add_endpoint(receiver.url());
  DispatcherProcess dispatcher(settings());
  std::string event = emit_order_event(2001);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "succeeded"; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);

  auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& r : requests) {
    EXPECT_EQ(r.header("webhook-id"), event_name(event)) << "receivers dedupe on webhook-id: it must not change";
    EXPECT_TRUE(signed_with(r, endpoint.secret));
  }
  EXPECT_EQ(value("select string_agg(attempt || ':' || response_status || ':' || response_excerpt, ' '"
                  " order by attempt) from webhook_delivery_attempts"),
            "1:500:boom 2:500:boom 3:200:ok");
  // The schedule's one-second waits (less at most 20 % jitter) separate the attempts.
  EXPECT_EQ(value("select bool_and(gap >= interval '700 milliseconds') from (select attempted_at"
                  " - lag(attempted_at) over (order by attempt) as gap from webhook_delivery_attempts) g"
                  " where gap is not null"),
            "t");
  EXPECT_EQ(value("select attempts || ',' || last_status from webhook_deliveries"), "3,200");
  EXPECT_EQ(value("select failing_since is null and enabled from webhook_endpoints"), "t");
}

TEST_F(Retries, RetriesAfterATimeout) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) {
    return n == 0 ? Reply{200, 5000ms} : Reply{};  // the first answer comes after the 1 s timeout
  });
  add_endpoint(receiver.url());
  DispatcherProcess dispatcher(settings());
  std::string event = emit_order_event(2002);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "succeeded"; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_EQ(value("select response_status is null and error ilike '%timed out%'"
                  " from webhook_delivery_attempts where attempt = 1"),
            "t")
      << value("select error from webhook_delivery_attempts where attempt = 1");
  EXPECT_EQ(value("select response_status from webhook_delivery_attempts where attempt = 2"), "200");
}

TEST_F(Retries, AClosedPortExhaustsTheScheduleThenTheEndpointIsDisabledAndTheOwnerTold) {
  ClosedPort closed;
  Endpoint endpoint = add_endpoint(closed.url());
  DispatcherProcess dispatcher(settings());
  std::string event = emit_order_event(2003);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "failed"; })) << dispatcher.stderr_text();

  EXPECT_EQ(value("select count(*) from webhook_delivery_attempts where response_status is null"
                  " and error ilike '%connect%'"),
            "3");
  EXPECT_EQ(value("select enabled::text || ',' || disabled_reason || ',' || (failing_since is not null)"
                  " from webhook_endpoints"),
            "false,failing,true");
  EXPECT_EQ(value("select kind || ',' || recipient || ',' || (data->>'url') || ',' || (data->>'endpoint_id')"
                  " from notifications where template = 'webhook_endpoint_disabled'"),
            "owner," + store_.owner_email + "," + closed.url() + "," + endpoint.id);
  EXPECT_NE(dispatcher.stderr_text().find("failed for good"), std::string::npos);

  // A disabled endpoint gets no deliveries for later events.
  std::string later = emit_order_event(2004);
  ASSERT_TRUE(eventually([&] { return value("select fanned_out_at is not null from events where id = '" + later + "'") == "t"; }));
  EXPECT_EQ(value("select count(*) from webhook_deliveries where event_id = '" + later + "'"), "0");
  EXPECT_EQ(dispatcher.terminate(), 0);
}

TEST_F(Retries, OneSuccessInBetweenKeepsTheEndpointEnabled) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest& r, std::size_t) {
    return r.body.find("\"doomed\"") != std::string::npos ? Reply{503} : Reply{};
  });
  add_endpoint(receiver.url());
  DispatcherProcess dispatcher(settings());
  std::string doomed = emit("product.updated", R"({"object":"product","name":"doomed"})");
  // Once the first failure is recorded the endpoint counts as failing; a success then clears it.
  ASSERT_TRUE(eventually([&] { return value("select failing_since is not null from webhook_endpoints") == "t"; }));
  std::string fine = emit("product.updated", R"({"object":"product","name":"fine"})");
  ASSERT_TRUE(eventually([&] { return delivery_status(doomed) == "failed"; })) << dispatcher.stderr_text();
  EXPECT_EQ(delivery_status(fine), "succeeded");
  EXPECT_EQ(value("select enabled from webhook_endpoints"), "t");
  EXPECT_EQ(value("select count(*) from notifications"), "0");
  EXPECT_EQ(dispatcher.terminate(), 0);
}

TEST_F(Retries, RedirectsAreNotFollowed) {
  WebhookReceiver target, redirecting;
  redirecting.set_behaviour([&](const ReceivedRequest&, std::size_t) {
    return Reply{302, 0ms, "", {{"Location", target.url()}}};
  });
  add_endpoint(redirecting.url());
  Settings one_retry = settings();
  one_retry["STOREAPI_WEBHOOK_RETRY_SCHEDULE"] = "1";
  DispatcherProcess dispatcher(one_retry);
  std::string event = emit_order_event(2005);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "failed"; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_EQ(redirecting.count(), 2u);
  EXPECT_EQ(target.count(), 0u);
  EXPECT_EQ(value("select string_agg(response_status::text, ',' order by attempt) from webhook_delivery_attempts"),
            "302,302");
}

TEST_F(Retries, RedeliveryAfterReEnablingStartsAFreshSchedule) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) { return n < 3 ? Reply{500} : Reply{}; });
  Endpoint endpoint = add_endpoint(receiver.url());
  DispatcherProcess dispatcher(settings());
  std::string event = emit_order_event(2006);
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "failed"; })) << dispatcher.stderr_text();
  ASSERT_EQ(value("select enabled from webhook_endpoints"), "f");

  {
    auto conn = db_->connect();
    pqxx::work work(*conn);
    admin::enable_webhook(work, endpoint.id);
    admin::JsonWriter json;
    admin::redeliver_event(json, work, event_name(event), std::nullopt);
    work.commit();
  }
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "succeeded"; })) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_EQ(receiver.count(), 4u);
  EXPECT_EQ(value("select string_agg(response_status::text, ',' order by attempt) from webhook_delivery_attempts"),
            "500,500,500,200");
  EXPECT_EQ(value("select attempts || ',' || schedule_start from webhook_deliveries"), "4,3");
}

}  // namespace
}  // namespace storeapi::testing
