// What wakes storeapi-dispatch (dispatch/wakeups.hpp): a NOTIFY on the events channel
// makes it look for work at once, and it still does after its database restarted (the
// LISTEN loop reconnects and LISTENs again). Its poll interval is set to ten minutes
// here, so a delivery within the tests' deadlines came from a wake-up, never the poll.
// The restart runs on a cluster of the test's own (ThrowawayCluster), never the shared one.
#include "dispatch_fixture.hpp"
#include "support/metrics_scrape.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class Wakeups : public DispatchTest {
 protected:
  static void SetUpTestSuite() { postgres_ = new ThrowawayCluster(); }
  static void TearDownTestSuite() {
    delete postgres_;
    postgres_ = nullptr;
  }

  void SetUp() override {
    if (!postgres_) throw std::runtime_error("no PostgreSQL of this suite: see the set-up failure above");
    db_ = std::make_unique<TestDatabase>(TestDatabase::Schema::migrated, postgres_->url());
    store_ = db_->create_store();
  }
  // The database is dropped after this, on a running cluster.
  void TearDown() override {
    if (!postgres_->running()) postgres_->start();
  }

  // A dispatcher polling every ten minutes, started and listening, with an endpoint
  // that `receiver` serves.
  std::unique_ptr<DispatcherProcess> listening_dispatcher(const WebhookReceiver& receiver) {
    add_endpoint(receiver.url());
    Settings s = settings();
    s["STOREAPI_DISPATCH_POLL_MS"] = "600000";
    auto dispatcher = std::make_unique<DispatcherProcess>(s);
    EXPECT_TRUE(eventually([&] { return listening(*dispatcher) == 1; })) << dispatcher->stderr_text();
    return dispatcher;
  }

  // storeapi_dispatch_listening, or -1 while /metrics cannot be read.
  static double listening(DispatcherProcess& dispatcher) {
    if (dispatcher.metrics_port() == 0) return -1;
    return metric_value(scrape_metrics(dispatcher.metrics_port()), "storeapi_dispatch_listening");
  }

  static inline ThrowawayCluster* postgres_ = nullptr;
};

TEST_F(Wakeups, ANotificationWakesItAtOnce) {
  WebhookReceiver receiver;
  auto dispatcher = listening_dispatcher(receiver);
  emit_order_event(4100);
  ASSERT_TRUE(receiver.wait_for_count(1, 60s)) << dispatcher->stderr_text();
  // Long after the wake-up of its connecting ("*"): only the notification can wake it.
  emit_order_event(4101);
  ASSERT_TRUE(receiver.wait_for_count(2, 60s)) << dispatcher->stderr_text();
  EXPECT_EQ(dispatcher->terminate(), 0);
}

TEST_F(Wakeups, ARestartedDatabaseStillWakesIt) {
  WebhookReceiver receiver;
  auto dispatcher = listening_dispatcher(receiver);
  postgres_->stop();
  ASSERT_TRUE(eventually([&] { return listening(*dispatcher) == 0; })) << dispatcher->stderr_text();
  postgres_->start();
  // Listening again: its reconnection woke it (what was sent meanwhile is lost), and the
  // pass that followed found the outbox connection dead and made it again.
  ASSERT_TRUE(eventually([&] { return listening(*dispatcher) == 1; }, 60s)) << dispatcher->stderr_text();
  emit_order_event(4200);
  ASSERT_TRUE(receiver.wait_for_count(1, 60s)) << dispatcher->stderr_text();
  // After the passes its reconnections made: only the notification can wake it.
  emit_order_event(4201);
  ASSERT_TRUE(receiver.wait_for_count(2, 60s)) << dispatcher->stderr_text();
  EXPECT_EQ(dispatcher->terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
