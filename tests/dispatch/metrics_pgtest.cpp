// The dispatcher's /metrics: a delivered webhook counts as a 2xx attempt with its
// commit-to-delivery lag, the backlog, disabled endpoints and where the outbox's time slots
// end show, and promtool accepts it.
#include "admin/webhooks/webhooks.hpp"
#include "dispatch_fixture.hpp"
#include "support/metrics_scrape.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using DispatcherMetrics = DispatchTest;

TEST_F(DispatcherMetrics, CountAttemptsLagBacklogAndDisabledEndpoints) {
  WebhookReceiver receiver, off;
  add_endpoint(receiver.url());
  Endpoint disabled = add_endpoint(off.url());
  {
    auto conn = db_->connect();
    pqxx::work work(*conn);
    admin::disable_webhook(work, disabled.id);
    work.commit();
  }
  DispatcherProcess dispatcher(settings());
  emit_order_event(1001);
  ASSERT_TRUE(receiver.wait_for_count(1, 30s));
  ASSERT_TRUE(eventually([&] { return dispatcher.metrics_port() != 0; })) << dispatcher.stderr_text();

  std::string m;
  ASSERT_TRUE(eventually([&] {
    m = scrape_metrics(dispatcher.metrics_port());
    return metric_value(m, R"(storeapi_dispatch_webhook_attempts_total{outcome="2xx"})") == 1;
  })) << m;
  EXPECT_EQ(metric_value(m, R"(storeapi_dispatch_webhook_attempts_total{outcome="5xx"})"), 0);
  EXPECT_EQ(metric_value(m, "storeapi_dispatch_delivery_lag_seconds_count"), 1);
  EXPECT_GT(metric_value(m, "storeapi_dispatch_delivery_lag_seconds_sum"), 0);
  EXPECT_EQ(metric_value(m, "storeapi_dispatch_endpoints_disabled"), 1);
  EXPECT_GE(metric_value(m, R"(storeapi_dispatch_backlog{kind="deliveries_due"})"), 0);
  EXPECT_NE(m.find("storeapi_dispatch_build_info{"), std::string::npos);
  // Where the outbox's slots end, as the database lists them, and their width (the
  // default: one day), for the alert on slots running out.
  ASSERT_TRUE(eventually([&] {
    m = scrape_metrics(dispatcher.metrics_port());
    return metric_value(m, "storeapi_dispatch_outbox_slots_end_timestamp_seconds") > 0;
  })) << m;
  EXPECT_EQ(std::to_string(static_cast<long long>(
                metric_value(m, "storeapi_dispatch_outbox_slots_end_timestamp_seconds"))),
            value("select extract(epoch from max(ends_at))::bigint from outbox_partitions"));
  EXPECT_EQ(metric_value(m, "storeapi_dispatch_outbox_slot_width_seconds"), 86400);
  EXPECT_EQ(promtool_check_metrics(m), "");
  EXPECT_EQ(dispatcher.terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
