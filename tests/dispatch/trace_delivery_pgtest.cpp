// A write's trace id travels with its event: the real server takes it from the request's
// traceparent (or makes one), stores it with the outbox rows the write queues, and the
// real dispatcher sends it on to the webhook receiver (a traceparent of its own span) and
// in the customer's e-mail (X-Trace-Id).
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <simdjson.h>

#include "admin/webhooks/webhooks.hpp"
#include "common/trace_context.hpp"
#include "dispatch/dispatch_fixture.hpp"
#include "api/seeded_server.hpp"
#include "support/poll.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kIncomingSpan = "00f067aa0ba902b7";
const std::string kTraceparent = std::string("00-") + kTrace + "-" + kIncomingSpan + "-01";

class TraceToDelivery : public ::testing::Test {
 protected:
  // An order of the store with a customer address, put in `state` directly.
  std::string order_in(const std::string& state) {
    std::string id = server_.value(
        "select id from orders where store_id = $1 and customer_email like '%_@_%' order by order_number limit 1",
        server_.store().id);
    server_.exec("update orders set fulfillment_status = $2 where id = $1", id, state);
    return id;
  }

  void add_endpoint(const std::string& url) {
    auto conn = server_.database().connect();
    pqxx::work work(*conn);
    admin::add_webhook(work, server_.store().id, url, std::string("order.fulfillment_updated"), loopback_destinations());
    work.commit();
  }

  // Ships an order (with a customer address) by a request with this traceparent; its id.
  std::string ship_order(const std::string& traceparent) {
    const std::string order = order_in("processing");
    HttpResponse r = server_.request("POST", "/v1/orders/" + order + "/fulfillment",
                                     R"({"fulfillment_status":"shipped"})", {{"traceparent", traceparent}});
    EXPECT_EQ(r.status, 200) << r.body;
    return order;
  }

  Settings dispatcher_settings(const SmtpSink& sink) {
    return {{"STOREAPI_DATABASE_URL", api_url(server_.database())},
            {"STOREAPI_SMTP_URL", sink.url()},
            {"STOREAPI_DISPATCH_POLL_MS", "500"}};
  }

  // The messages the sink received with the X-Trace-Id `trace`, as their recipients.
  std::vector<std::string> mail_recipients_traced(const SmtpSink& sink, const std::string& trace) {
    std::vector<std::string> out;
    for (const std::string& text : sink.messages()) {
      auto message = parser_.parse(text).value();
      auto header = message["headers"]["x-trace-id"];
      if (!header.error() && std::string_view(header) == trace) out.emplace_back(std::string_view(message["headers"]["to"]));
    }
    return out;
  }

  SeededServer server_;
  simdjson::dom::parser parser_;
};

TEST_F(TraceToDelivery, TheWebhookAndTheMailCarryTheTraceIdOfTheWritesTraceparent) {
  WebhookReceiver receiver;
  add_endpoint(receiver.url());
  SmtpSink sink;
  DispatcherProcess dispatcher(dispatcher_settings(sink));

  const std::string order = ship_order(kTraceparent);
  EXPECT_EQ(server_.value("select trace_id from events where payload->'data'->'object'->>'id' = $1", order), kTrace);
  EXPECT_EQ(server_.value("select trace_id from notifications where data->>'order_id' = $1", order), kTrace);

  ASSERT_TRUE(receiver.wait_for_count(1, 60s)) << dispatcher.stderr_text();
  const std::string traceparent = receiver.requests().at(0).header("traceparent");
  EXPECT_EQ(trace::trace_id_of(traceparent), kTrace) << traceparent;
  EXPECT_EQ(traceparent.find(kIncomingSpan), std::string::npos) << "the delivery is a span of its own";

  const std::string customer = server_.value("select customer_email from orders where id = $1", order);
  ASSERT_TRUE(eventually([&] { return !mail_recipients_traced(sink, kTrace).empty(); }, 60s))
      << dispatcher.stderr_text();
  EXPECT_EQ(mail_recipients_traced(sink, kTrace), std::vector<std::string>{customer});
  EXPECT_EQ(dispatcher.terminate(), 0);
}

TEST_F(TraceToDelivery, AWriteWithoutTraceparentStoresTheTraceIdItWasGiven) {
  const std::string order = ship_order("00-not-a-valid-traceparent");
  const std::string stored = server_.value("select trace_id from events where payload->'data'->'object'->>'id' = $1", order);
  EXPECT_TRUE(trace::is_trace_id(stored)) << stored;
  EXPECT_NE(stored, kTrace);
  EXPECT_EQ(server_.value("select trace_id from notifications where data->>'order_id' = $1", order), stored);
}

TEST_F(TraceToDelivery, ADeliveryLogLineNamesTheTrace) {
  WebhookReceiver receiver;
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t) { return Reply{500}; });
  add_endpoint(receiver.url());
  SmtpSink sink;
  DispatcherProcess dispatcher(dispatcher_settings(sink));

  const std::string order = ship_order(kTraceparent);
  ASSERT_TRUE(eventually([&] {
    return dispatcher.stderr_text().find("(trace " + std::string(kTrace) + "): attempt 1 failed (HTTP 500)") !=
           std::string::npos;
  }, 60s)) << dispatcher.stderr_text();
  EXPECT_EQ(dispatcher.terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
