// Webhook destinations checked at connect time (common/ip_networks.hpp, the dispatcher's
// open-socket callback): whatever was stored, and whatever a name resolves to, the
// dispatcher connects only to addresses STOREAPI_WEBHOOK_ALLOW_NETWORKS allows besides the
// public ones. The receivers are on loopback, so a dispatcher allowing nothing must refuse
// them; the endpoints are stored with loopback allowed, as a name that resolved to a public
// address when it was added would be. Seen failing: without the open-socket callback in
// Transfers::start the receiver gets every request and the attempts succeed; logging
// job.url as it is instead of url::without_secrets fails LogLinesShow...
#include "dispatch_fixture.hpp"
#include "support/metrics_scrape.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class Destinations : public DispatchTest {
 protected:
  Settings allowing(const std::string& networks) const {
    Settings s = settings();
    s["STOREAPI_WEBHOOK_ALLOW_NETWORKS"] = networks;
    return s;
  }

  // The first two attempts of the only delivery, each "<attempt>:<error>".
  std::string first_two_attempts() {
    return value("select string_agg(attempt || ':' || coalesce(response_status::text, '-') || ':' || coalesce(error, ''),"
                 " ' | ' order by attempt) from webhook_delivery_attempts where attempt <= 2");
  }
};

TEST_F(Destinations, AnAddressOutsideTheAllowListGetsNoConnectionAndTheAttemptIsRetried) {
  WebhookReceiver receiver;
  add_endpoint(receiver.url());  // http://127.0.0.1:PORT/hooks
  DispatcherProcess dispatcher(allowing("10.99.0.0/16"));
  std::string event = emit_order_event(4101);
  ASSERT_TRUE(eventually([&] { return std::stoi(value("select count(*) from webhook_delivery_attempts")) >= 2; }))
      << dispatcher.stderr_text();
  const std::string refused = "destination refused: 127.0.0.1 is a loopback address; webhooks go only to public "
                              "addresses unless STOREAPI_WEBHOOK_ALLOW_NETWORKS allows it";
  EXPECT_EQ(first_two_attempts(), "1:-:" + refused + " | 2:-:" + refused);
  EXPECT_EQ(receiver.count(), 0u) << "a request reached a refused address";
  EXPECT_NE(delivery_status(event), "succeeded");
  EXPECT_NE(dispatcher.stderr_text().find("attempt 1 failed (" + refused + "); retry in"), std::string::npos)
      << dispatcher.stderr_text();
  EXPECT_GE(metric_value(scrape_metrics(dispatcher.metrics_port()),
                         R"(storeapi_dispatch_webhook_attempts_total{outcome="refused"})"),
            2);
  EXPECT_EQ(dispatcher.terminate(), 0);
}

TEST_F(Destinations, ANameIsCheckedByTheAddressItResolvesTo) {
  WebhookReceiver receiver;
  // libcurl resolves localhost to 127.0.0.1 and ::1 (the receiver listens on the first).
  add_endpoint("http://localhost:" + std::to_string(receiver.port()) + "/hooks");
  DispatcherProcess refusing(allowing(""));
  std::string event = emit_order_event(4102);
  ASSERT_TRUE(eventually([&] { return std::stoi(value("select count(*) from webhook_delivery_attempts")) >= 1; }))
      << refusing.stderr_text();
  EXPECT_NE(value("select error from webhook_delivery_attempts where attempt = 1").find("is a loopback address"),
            std::string::npos);
  EXPECT_EQ(receiver.count(), 0u);
  EXPECT_EQ(refusing.terminate(), 0);

  // The same endpoint through a dispatcher that allows loopback: delivered.
  DispatcherProcess allowing_loopback(allowing(kLoopbackNetworks));
  ASSERT_TRUE(eventually([&] { return delivery_status(event) == "succeeded"; }, 15s))
      << allowing_loopback.stderr_text();
  EXPECT_EQ(receiver.count(), 1u);
  EXPECT_EQ(allowing_loopback.terminate(), 0);
}

TEST_F(Destinations, LogLinesShowTheUrlWithoutCredentialsOrQuery) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t) { return Reply{500, 0ms, "boom"}; });
  add_endpoint("http://hookuser:hunter2secret@127.0.0.1:" + std::to_string(receiver.port()) +
               "/hooks/in?token=querysecret#frag");
  DispatcherProcess dispatcher(settings());
  emit_order_event(4103);
  ASSERT_TRUE(eventually([&] { return dispatcher.stderr_text().find("attempt 1 failed") != std::string::npos; }))
      << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
  std::string log = dispatcher.stderr_text();
  EXPECT_NE(log.find(" to http://127.0.0.1:" + std::to_string(receiver.port()) + "/hooks/in: attempt 1 failed (HTTP 500)"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("hunter2secret"), std::string::npos) << log;
  EXPECT_EQ(log.find("querysecret"), std::string::npos) << log;
  EXPECT_EQ(log.find("hookuser"), std::string::npos) << log;
  EXPECT_EQ(value("select count(*) from webhook_delivery_attempts where error like '%secret%'"), "0");
  // The receiver did get what the endpoint's URL says.
  ASSERT_GE(receiver.count(), 1u);
  EXPECT_EQ(receiver.requests()[0].target, "/hooks/in?token=querysecret");
}

TEST_F(Destinations, AMalformedAllowListStopsTheDispatcherAtStart) {
  DispatcherProcess dispatcher(allowing("127.0.0.0/8,10.0.0.1/8"));
  EXPECT_EQ(dispatcher.wait_exit(10s), 2);
  EXPECT_EQ(dispatcher.stderr_text(),
            "storeapi-dispatch: STOREAPI_WEBHOOK_ALLOW_NETWORKS: expected comma-separated networks such as "
            "127.0.0.0/8 or ::1/128, got '10.0.0.1/8': its address has bits set past the /8 prefix; the network is "
            "10.0.0.0/8, one host is written alone (10.0.0.1)\n");
}

}  // namespace
}  // namespace storeapi::testing
