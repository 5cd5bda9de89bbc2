// The outbox's retention (sql/033_outbox_partitions.sql, src/dispatch/partitions.cpp), on
// the real dispatcher with a retention of seconds in slots of one second: expired slots
// are dropped whole, a slot with a pending delivery or e-mail stays until that work ends,
// writes go on while slots are detached and dropped, and under a steady write load the
// outbox stops growing.
// Seen failing without the feature: with the dispatcher's keep_partitions() call removed
// no slot is ever dropped (every test times out on it); with api.outbox_slot_busy()
// answering false, the pending delivery's and e-mail's events are dropped with their slots.
#include "admin/migrations/migrations.hpp"
#include "dispatch_fixture.hpp"

#include <atomic>
#include <thread>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class Retention : public DispatchTest {
 protected:
  void SetUp() override {
    db_ = std::make_unique<TestDatabase>(TestDatabase::Schema::empty);
    storeapi::Retention short_retention;
    short_retention.keep = std::chrono::seconds(kRetentionSeconds);
    short_retention.partition = 1s;
    admin::migrate(*db_->connect(), short_retention);
    store_ = db_->create_store();
  }

  Settings settings() const {
    Settings s = DispatchTest::settings();
    s["STOREAPI_RETENTION_SECONDS"] = std::to_string(kRetentionSeconds);
    s["STOREAPI_PARTITION_SECONDS"] = "1";
    // A failed delivery waits a minute for its retry: pending for the whole test.
    s["STOREAPI_WEBHOOK_RETRY_SCHEDULE"] = "60";
    return s;
  }

  long long count(const std::string& sql) { return std::stoll(value(sql)); }

  static constexpr int kRetentionSeconds = 2;
};

TEST_F(Retention, ExpiredSlotsGoWholeWhilePendingDeliveriesAndMailsKeepTheirs) {
  WebhookReceiver ok;
  WebhookReceiver down;
  down.set_behaviour([](const ReceivedRequest&, std::size_t) { return Reply{503, 0ms, "down"}; });
  add_endpoint(ok.url(), "order.fulfillment_updated");
  add_endpoint(down.url(), "booking.canceled");
  DispatcherProcess dispatcher(settings());

  std::string delivered = emit_order_event(4001);
  // The pending work in a later slot than the delivered event: a slot goes whole.
  const std::string slot_end = "(select p.ends_at from outbox_partitions p join events e on e.created_at >= p.starts_at"
                               " and e.created_at < p.ends_at where e.id = '" + delivered + "')";
  ASSERT_TRUE(eventually([&] { return value("select now() >= " + slot_end) == "t"; }));
  std::string failing = emit("booking.canceled", R"({"object":"booking"})");
  // No SMTP server is configured: the e-mail stays pending.
  std::string mail = value("select api.queue_notification('" + store_.id +
                           "', 'owner', 'api_key_created', 'owner@example.com', '{}')");
  const std::string slot_of_failing = value("select name from outbox_partitions p join events e"
                                            " on e.created_at >= p.starts_at and e.created_at < p.ends_at"
                                            " where e.id = '" + failing + "'");
  ASSERT_TRUE(ok.wait_for_count(1, 30s)) << dispatcher.stderr_text();
  ASSERT_TRUE(down.wait_for_count(1, 30s)) << dispatcher.stderr_text();

  // The delivered event's slot goes once past the retention, with its delivery and attempt...
  ASSERT_TRUE(eventually([&] { return count("select count(*) from events where id = '" + delivered + "'") == 0; },
                          30s))
      << dispatcher.stderr_text();
  EXPECT_EQ(count("select count(*) from webhook_deliveries where event_id = '" + delivered + "'"), 0);
  EXPECT_EQ(count("select count(*) from outbox_partitions where name = 'p_older'"), 0);
  EXPECT_EQ(count("select count(*) from pg_class where relname = 'events_p_older'"), 0);
  EXPECT_NE(dispatcher.stderr_text().find("expired: dropped"), std::string::npos);
  // ... while the pending ones keep their slots, past the retention.
  ASSERT_TRUE(eventually([&] {
    return count("select count(*) from outbox_partitions where ends_at <= now() - interval '" +
                 std::to_string(kRetentionSeconds + 1) + " seconds' and name = '" + slot_of_failing + "'") == 1;
  }, 30s));
  EXPECT_EQ(value("select status from webhook_deliveries where event_id = '" + failing + "'"), "pending");
  EXPECT_EQ(count("select count(*) from webhook_delivery_attempts a join webhook_deliveries d"
                  " on d.id = a.delivery_id where d.event_id = '" + failing + "'"), 1);
  EXPECT_EQ(value("select status from notifications where id = '" + mail + "'"), "pending");

  // The delivery's schedule exhausted, the e-mail still holds the slot: a pass that came
  // after (it dropped a slot that had not begun at the update) leaves it.
  value("update webhook_deliveries set status = 'failed' where event_id = '" + failing + "' returning 1");
  const std::string later = value("select name from outbox_partitions where starts_at > now() order by starts_at limit 1");
  ASSERT_TRUE(eventually([&] { return count("select count(*) from outbox_partitions where name = '" + later + "'") == 0; },
                          30s));
  EXPECT_EQ(count("select count(*) from events where id = '" + failing + "'"), 1);
  // Once the e-mail has failed for good too, the slot goes with all of it.
  value("update notifications set status = 'failed' where id = '" + mail + "' returning 1");
  ASSERT_TRUE(eventually([&] { return count("select count(*) from events where id = '" + failing + "'") == 0; }, 30s))
      << dispatcher.stderr_text();
  EXPECT_EQ(count("select count(*) from webhook_delivery_attempts"), 0);
  // The e-mail was queued after the event: the 1 s slot may have turned between them, so
  // its own slot may go a pass later.
  EXPECT_TRUE(eventually([&] { return count("select count(*) from notifications where id = '" + mail + "'") == 0; },
                         30s));
  EXPECT_EQ(count("select count(*) from pg_class where relname like '%\\_" + slot_of_failing + "'"), 0);
  EXPECT_EQ(dispatcher.terminate(), 0);
}

// A writer adds events (with their e-mails) at a steady rate for a bounded time while the
// dispatcher drops a slot every second: every write succeeds, and the rows kept stay about
// a retention's worth (plus a slot and a pass) instead of growing with what was written.
TEST_F(Retention, WritesGoOnWhileSlotsAreDroppedAndTheOutboxStopsGrowing) {
  SmtpSink smtp;  // the e-mails are sent, so they end
  Settings with_mail = settings();
  with_mail["STOREAPI_SMTP_URL"] = smtp.url();
  DispatcherProcess dispatcher(with_mail);
  constexpr auto kRun = 10s;
  std::atomic<long long> written{0}, failed{0};
  std::string first_error;
  std::thread writer([&] {
    auto conn = db_->connect();
    const auto until = std::chrono::steady_clock::now() + kRun;
    while (std::chrono::steady_clock::now() < until) {
      try {
        pqxx::work work(*conn);
        work.exec_params("select api.emit_event($1, 'product.updated', '{}'),"
                         " api.queue_notification($1, 'owner', 'api_key_created', 'owner@example.com', '{}')",
                         store_.id);
        work.commit();
        ++written;
        std::this_thread::sleep_for(20ms);  // a steady rate the SMTP sink keeps up with
      } catch (const std::exception& e) {
        if (failed++ == 0) first_error = e.what();
      }
    }
  });
  // Rows kept and slots, once a second; the first samples are the warm-up.
  std::vector<long long> kept, slots;
  const auto until = std::chrono::steady_clock::now() + kRun;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(1s);
    kept.push_back(count("select count(*) from events"));
    slots.push_back(count("select count(*) from outbox_partitions"));
  }
  writer.join();
  EXPECT_EQ(failed.load(), 0) << first_error;
  ASSERT_GT(written.load(), 0);
  const std::string log = dispatcher.stderr_text();
  std::size_t drops = 0;
  for (auto at = log.find("expired: dropped"); at != std::string::npos; at = log.find("expired: dropped", at + 1))
    ++drops;
  EXPECT_GE(drops, 4u) << log;
  for (std::size_t i = 0; i < kept.size(); ++i)
    std::printf("after %zu s: %lld events kept, %lld slots\n", i + 1, kept[i], slots[i]);
  std::printf("%lld events written in all\n", written.load());
  // Kept: the retention (2 s) plus the slot being written and a maintenance pass, far
  // less than the ten seconds written; the slots: those kept, the current one, seven ahead.
  EXPECT_LT(count("select count(*) from events"), written.load() * 6 / 10);
  EXPECT_LT(count("select count(*) from notifications"), written.load() * 6 / 10);
  for (long long n : slots) EXPECT_LE(n, kRetentionSeconds + storeapi::Retention::kPartitionsAhead + 5);
  EXPECT_EQ(dispatcher.terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
