// A store whose dispatch is paused on this pod (store_fences.dispatch_paused, written by
// a move: docs/DECISIONS.md, "Pods") is left alone by the dispatcher: its events are not
// fanned out, its pending deliveries and e-mails are not claimed, while another store of
// the same database is served; once the pause is lifted, all of it goes out once.
// Seen failing: with api.dispatch_paused answering false, the paused store's event was
// fanned out at once; with the filter taken out of the claim of deliveries only, the
// delivery fanned out by hand was sent (three deliveries succeeded, not two); with it
// taken out of the claim of e-mails only, the paused store's e-mail was "sent,1".
#include "dispatch_fixture.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class DispatchPause : public DispatchTest {
 protected:
  void set_paused(const std::string& store_id, bool paused) {
    value("insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused) values ('" + store_id +
          "', 1, false, " + (paused ? "true" : "false") +
          ") on conflict (store_id) do update set dispatch_paused = excluded.dispatch_paused returning 1");
    value("select pg_notify(api.config('events_channel'), '') is null");  // as the mover wakes them
  }

  // The event turned into its deliveries, as the dispatcher's fan-out does: a pending
  // delivery due now, waiting only for a claim.
  void fan_out_by_hand(const std::string& event) {
    value("with d as (insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id, next_attempt_at)"
          " select e.store_id, e.id, e.created_at, w.id, e.created_at from events e"
          " join webhook_endpoints w on w.store_id = e.store_id where e.id = '" + event + "' returning 1)"
          " update events set fanned_out_at = api.now_ms() where id = '" + event + "' returning (select count(*) from d)");
  }

  std::string mail_status(const std::string& id) {
    return value("select status || ',' || attempts from notifications where id = '" + id + "'");
  }
};

constexpr const char* kKeyData =
    R"({"api_key_id":"k1","name":"ci","prefix":"sk_live_abcd","scopes":["orders:read"],)"
    R"("expires_at":null,"revoked_at":null,"created_by":"owner@example.com"})";

TEST_F(DispatchPause, LeavesAPausedStoreAloneAndServesItOnceLifted) {
  WebhookReceiver paused_receiver, served_receiver;
  SmtpSink sink;
  const TestStore paused = store_;
  add_endpoint(paused_receiver.url());
  store_ = db_->create_store();
  const TestStore served = store_;
  add_endpoint(served_receiver.url());
  set_paused(paused.id, true);

  Settings s = settings();
  s["STOREAPI_SMTP_URL"] = sink.url();
  DispatcherProcess dispatcher(s);

  store_ = paused;
  std::string held_event = emit_order_event(1);
  std::string held_mail = queue_notification("owner", "api_key_created", paused.owner_email, kKeyData);
  store_ = served;
  std::string served_event = emit_order_event(2);
  std::string served_mail = queue_notification("owner", "api_key_created", served.owner_email, kKeyData);
  ASSERT_TRUE(served_receiver.wait_for_count(1, 30s)) << dispatcher.stderr_text();
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 1; })) << dispatcher.stderr_text();
  EXPECT_EQ(delivery_status(served_event), "succeeded");
  EXPECT_EQ(mail_status(served_mail), "sent,1");
  EXPECT_EQ(value("select fanned_out_at is null from events where id = '" + held_event + "'"), "t");
  EXPECT_EQ(delivery_status(held_event), "");
  EXPECT_EQ(mail_status(held_mail), "pending,0");

  // A delivery that exists already (fanned out before the pause) is not claimed either.
  fan_out_by_hand(held_event);
  store_ = served;
  emit_order_event(3);
  ASSERT_TRUE(served_receiver.wait_for_count(2, 30s)) << dispatcher.stderr_text();
  ASSERT_TRUE(eventually([&] { return value("select count(*) from webhook_deliveries where status = 'succeeded'") == "2"; }));
  EXPECT_EQ(delivery_status(held_event), "pending");
  EXPECT_EQ(value("select attempts from webhook_deliveries where event_id = '" + held_event + "'"), "0");
  EXPECT_EQ(paused_receiver.count(), 0u);
  EXPECT_EQ(mail_status(held_mail), "pending,0");

  set_paused(paused.id, false);
  ASSERT_TRUE(paused_receiver.wait_for_count(1, 30s)) << dispatcher.stderr_text();
  ASSERT_TRUE(eventually([&] { return sink.messages().size() == 2; })) << dispatcher.stderr_text();
  ASSERT_TRUE(eventually([&] { return delivery_status(held_event) == "succeeded"; }));
  EXPECT_EQ(mail_status(held_mail), "sent,1");
  EXPECT_EQ(dispatcher.terminate(), 0);
  EXPECT_EQ(paused_receiver.count(), 1u);
  EXPECT_EQ(paused_receiver.requests()[0].header("webhook-id"), event_name(held_event));
}

}  // namespace
}  // namespace storeapi::testing
