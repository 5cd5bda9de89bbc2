// storeapi-admin webhook list / disable / enable / rotate-secret / deliveries and
// event redeliver (webhook add: other_commands_pgtest.cpp).
#include "admin_fixture.hpp"

#include <set>

namespace storeapi::testing {
namespace {

class WebhookCommands : public AdminTest {
 protected:
  void SetUp() override { store_ = db().create_store(); }

  std::string add(const std::string& url, const std::string& events = "") {
    std::vector<std::string> args = {"webhook", "add", "--store", store_.id, "--url", url};
    if (!events.empty()) args.insert(args.end(), {"--events", events});
    return str(ok(args), "id");
  }

  // An event as the write functions store it; returns its uuid.
  std::string emit(const std::string& type = "order.fulfillment_updated") {
    return query_value("select api.emit_event('" + store_.id + "', '" + type + "', '{\"object\":\"order\"}')");
  }

  static std::string evt(const std::string& uuid) {
    std::string hex;
    for (char c : uuid)
      if (c != '-') hex.push_back(c);
    return "evt_" + hex;
  }

  TestStore store_;
};

TEST_F(WebhookCommands, AddTakesTheEventTypesToSubscribeTo) {
  auto all = ok({"webhook", "add", "--store", store_.id, "--url", "https://erp.example/all"});
  EXPECT_TRUE(all["events"].is_null());
  EXPECT_TRUE(flag(all, "enabled"));
  auto some = ok({"webhook", "add", "--store", store_.id, "--url", "https://erp.example/b", "--events",
                  "booking.accepted,booking.canceled,booking.accepted"});
  auto events = some["events"].get_array().value();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(std::string_view(events.at(0)), "booking.accepted");
  EXPECT_EQ(std::string_view(events.at(1)), "booking.canceled");
  EXPECT_NE(fails({"webhook", "add", "--store", store_.id, "--url", "https://x.example", "--events", "order.created"}, 2)
                .find("unknown event type 'order.created'"),
            std::string::npos);
  fails({"webhook", "add", "--store", store_.id, "--url", "https://x.example", "--events", ""}, 2);
  fails({"webhook", "add", "--store", store_.id, "--url", "https://x.example", "--events", "booking.accepted,"}, 2);
}

TEST_F(WebhookCommands, ListShowsTheEndpointsOldestFirstWithoutSecrets) {
  std::string first = add("https://erp.example/1");
  std::string second = add("https://erp.example/2", "product.updated");
  auto list = ok({"webhook", "list", "--store", store_.id})["data"].get_array().value();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(str(list.at(0).value(), "id"), first);
  EXPECT_EQ(str(list.at(1).value(), "id"), second);
  for (auto endpoint : list) {
    EXPECT_EQ(endpoint["secret"].error(), simdjson::NO_SUCH_FIELD);
    EXPECT_EQ(str(endpoint, "object"), "webhook_endpoint");
    EXPECT_TRUE(endpoint["failing_since"].is_null());
  }
  fails({"webhook", "list", "--store", "00000000-0000-4000-8000-000000000000"}, 1);
}

TEST_F(WebhookCommands, DisableFailsPendingDeliveriesAndEnableResumes) {
  std::string id = add("https://erp.example/hooks");
  std::string event = emit();
  query_value("insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id)"
              " select store_id, id, created_at, '" + id + "' from events where id = '" + event + "' returning 1");

  auto disabled = ok({"webhook", "disable", "--webhook", id});
  EXPECT_FALSE(flag(disabled, "enabled"));
  EXPECT_EQ(str(disabled, "disabled_reason"), "manual");
  EXPECT_FALSE(disabled["disabled_at"].is_null());
  EXPECT_EQ(query_value("select status from webhook_deliveries"), "failed");
  EXPECT_EQ(query_value("select count(*) from notifications where template = 'webhook_endpoint_disabled'"), "0");
  EXPECT_NE(fails({"webhook", "disable", "--webhook", id}, 1).find("already disabled"), std::string::npos);

  auto enabled = ok({"webhook", "enable", "--webhook", id});
  EXPECT_TRUE(flag(enabled, "enabled"));
  EXPECT_TRUE(enabled["disabled_at"].is_null());
  EXPECT_TRUE(enabled["disabled_reason"].is_null());
  fails({"webhook", "enable", "--webhook", id}, 1);
  fails({"webhook", "disable", "--webhook", "00000000-0000-4000-8000-000000000000"}, 1);
  fails({"webhook", "disable", "--webhook", "nope"}, 1);
}

TEST_F(WebhookCommands, RotateSecretPrintsTheNewOneAndKeepsTheOldForADay) {
  auto added = ok({"webhook", "add", "--store", store_.id, "--url", "https://erp.example/hooks"});
  std::string id = str(added, "id"), old_secret = str(added, "secret");
  auto rotated = ok({"webhook", "rotate-secret", "--webhook", id});
  std::string secret = str(rotated, "secret");
  EXPECT_EQ(secret.rfind("whsec_", 0), 0u);
  EXPECT_NE(secret, old_secret);
  EXPECT_EQ(query_value("select secret || ' ' || previous_secret from webhook_endpoints where id = '" + id + "'"),
            secret + " " + old_secret);
  EXPECT_EQ(query_value("select previous_secret_expires_at - updated_at from webhook_endpoints where id = '" + id + "'"),
            "1 day");
  EXPECT_FALSE(rotated["previous_secret_expires_at"].is_null());
  fails({"webhook", "rotate-secret", "--webhook", "00000000-0000-4000-8000-000000000000"}, 1);
}

TEST_F(WebhookCommands, DeliveriesListEachDeliveryWithItsAttempts) {
  std::string endpoint = add("https://erp.example/hooks");
  std::string first = emit(), second = emit("product.updated");
  std::string delivery = query_value(
      "insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id, status, attempts)"
      " select store_id, id, created_at, '" + endpoint + "', 'succeeded', 2 from events where id = '" + first +
      "' returning id");
  query_value("insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id)"
              " select store_id, id, created_at, '" + endpoint + "' from events where id = '" + second + "' returning 1");
  query_value("with d as (select event_created_at as t from webhook_deliveries where id = '" + delivery + "'),"
              " a as (insert into webhook_delivery_attempts (store_id, delivery_id, event_created_at, attempt, attempted_at,"
              " response_status, latency_ms, response_excerpt, error)"
              " select '" + store_.id + "'::uuid, '" + delivery + "'::uuid, t, 1, '2026-11-21T10:00:00.000Z'::timestamptz, null, 1000, null, 'timed out'"
              " from d union all"
              " select '" + store_.id + "'::uuid, '" + delivery + "'::uuid, t, 2, '2026-11-21T10:00:05.250Z'::timestamptz, 200, 12, 'ok', null from d"
              " returning 1)"
              " select count(*) from a");

  auto all = ok({"webhook", "deliveries", "--store", store_.id})["data"].get_array().value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(str(all.at(0).value(), "event_type"), "product.updated");
  EXPECT_EQ(str(all.at(0).value(), "status"), "pending");
  EXPECT_FALSE(all.at(0).value()["next_attempt_at"].is_null());

  for (const std::string& name : {evt(first), first}) {
    auto one = ok({"webhook", "deliveries", "--store", store_.id, "--event", name})["data"].get_array().value();
    ASSERT_EQ(one.size(), 1u) << name;
    auto d = one.at(0).value();
    EXPECT_EQ(str(d, "id"), delivery);
    EXPECT_EQ(str(d, "event_id"), evt(first));
    EXPECT_EQ(str(d, "url"), "https://erp.example/hooks");
    EXPECT_EQ(str(d, "status"), "succeeded");
    EXPECT_TRUE(d["next_attempt_at"].is_null());
    auto attempts = d["attempts"].get_array().value();
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(str(attempts.at(0).value(), "error"), "timed out");
    EXPECT_TRUE(attempts.at(0).value()["response_status"].is_null());
    EXPECT_EQ(str(attempts.at(1).value(), "attempted_at"), "2026-11-21T10:00:05.250Z");
    EXPECT_EQ(num(attempts.at(1).value(), "response_status"), 200);
    EXPECT_EQ(num(attempts.at(1).value(), "latency_ms"), 12);
    EXPECT_EQ(str(attempts.at(1).value(), "response_excerpt"), "ok");
  }
  EXPECT_EQ(ok({"webhook", "deliveries", "--store", store_.id, "--limit", "1"})["data"].get_array().size(), 1u);
  fails({"webhook", "deliveries", "--store", store_.id, "--limit", "0"}, 2);
  TestStore other = db().create_store();
  fails({"webhook", "deliveries", "--store", other.id, "--event", first}, 1);
  fails({"webhook", "deliveries", "--store", store_.id, "--event", "evt_nope"}, 1);
}

TEST_F(WebhookCommands, RedeliverRequeuesForEverySubscribedEnabledEndpoint) {
  std::string failed_endpoint = add("https://erp.example/a");
  std::string event = emit();
  std::string delivery = query_value(
      "insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id, status, attempts)"
      " select store_id, id, created_at, '" + failed_endpoint + "', 'failed', 13 from events where id = '" + event +
      "' returning id");
  query_value("update events set fanned_out_at = now() where id = '" + event + "' returning 1");
  std::string added_later = add("https://erp.example/b");
  add("https://erp.example/bookings-only", "booking.accepted");
  std::string disabled = add("https://erp.example/off");
  ok({"webhook", "disable", "--webhook", disabled});

  auto conn = db().connect();
  Listener wake(*conn, "storeapi_events");
  auto result = ok({"event", "redeliver", "--event", evt(event)});
  EXPECT_TRUE(wake.wait_for(""));
  EXPECT_EQ(str(result, "object"), "event_redelivery");
  EXPECT_EQ(str(result, "event_id"), evt(event));
  auto deliveries = result["deliveries"].get_array().value();
  ASSERT_EQ(deliveries.size(), 2u);
  EXPECT_EQ(str(deliveries.at(0).value(), "id"), delivery);
  EXPECT_EQ(str(deliveries.at(1).value(), "endpoint_id"), added_later);
  EXPECT_EQ(query_value("select status || ',' || attempts || ',' || schedule_start || ',' || (next_attempt_at <= now())"
                        " from webhook_deliveries where id = '" + delivery + "'"),
            "pending,13,13,true");
  EXPECT_EQ(query_value("select count(*) from webhook_deliveries where event_id = '" + event + "'"), "2");

  ok({"event", "redeliver", "--event", event, "--store", store_.id});
  TestStore other = db().create_store();
  fails({"event", "redeliver", "--event", event, "--store", other.id}, 1);
  fails({"event", "redeliver", "--event", "evt_00000000000040008000000000000000"}, 1);
  std::string lonely = query_value("select api.emit_event('" + other.id + "', 'product.updated', '{}')");
  EXPECT_NE(fails({"event", "redeliver", "--event", lonely}, 1).find("no enabled webhook endpoint"), std::string::npos);
}

// Pages follow one another by the last delivery's id, newest first, until has_more is false.
// Fails without --starting-after (the second page would repeat the first).
TEST_F(WebhookCommands, DeliveriesPageOverWhatIsKept) {
  std::string endpoint = add("https://erp.example/hooks");
  for (int i = 0; i < 3; ++i)
    query_value("insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id)"
                " select store_id, id, created_at, '" + endpoint + "' from events where id = '" + emit() +
                "' returning 1");
  auto first = ok({"webhook", "deliveries", "--store", store_.id, "--limit", "2"});
  auto page = first["data"].get_array().value();
  ASSERT_EQ(page.size(), 2u);
  EXPECT_TRUE(flag(first, "has_more"));
  std::string newest = str(page.at(0).value(), "id"), last = str(page.at(1).value(), "id");
  auto second = ok({"webhook", "deliveries", "--store", store_.id, "--limit", "2", "--starting-after", last});
  auto rest = second["data"].get_array().value();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_FALSE(flag(second, "has_more"));
  std::set<std::string> seen{newest, last, str(rest.at(0).value(), "id")};
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_NE(fails({"webhook", "deliveries", "--store", store_.id, "--starting-after",
                   "00000000-0000-4000-8000-000000000000"}, 1).find("kept for 30 days"),
            std::string::npos);
}

// An event older than the retention may still be there until its slot is dropped, but it
// is not queued again; one already gone is named as possibly expired. Fails without the
// retention check in redeliver_event (the old event would be queued).
TEST_F(WebhookCommands, RedeliverPastTheRetentionIsAClearError) {
  add("https://erp.example/hooks");
  std::string old = query_value("insert into events (store_id, type, payload, created_at, fanned_out_at) values ('" +
                                store_.id + "', 'product.updated', '{}', now() - interval '31 days', now()) returning id");
  std::string err = fails({"event", "redeliver", "--event", evt(old)}, 1);
  EXPECT_NE(err.find("past the retention period (30 days)"), std::string::npos) << err;
  EXPECT_EQ(query_value("select count(*) from webhook_deliveries where event_id = '" + old + "'"), "0");
  err = fails({"event", "redeliver", "--event", "evt_00000000000040008000000000000000"}, 1);
  EXPECT_NE(err.find("events are kept for 30 days"), std::string::npos) << err;
  // An id of neither form (evt_ and 32 hex digits, a uuid) names no event either, and says
  // so the same way. Seen failing: "no event with id 'evt_1f2e'" without the retention.
  for (const char* id : {"evt_1f2e", "evt_0000000000004000800000000000000g"}) {
    err = fails({"event", "redeliver", "--event", id}, 1);
    EXPECT_NE(err.find("no event with id '" + std::string(id) + "' (events are kept for 30 days"), std::string::npos) << err;
  }
  // Kept longer (as a dispatcher records it), the event may be redelivered.
  query_value("insert into outbox_retention (retention, partition_width) values ('40 days', '1 day') returning 1");
  auto redelivered = ok({"event", "redeliver", "--event", evt(old)});
  query_value("delete from outbox_retention returning 1");
  EXPECT_EQ(redelivered["deliveries"].get_array().size(), 1u);
}

// What `retention` shows: the retention the dispatcher recorded (the default before), the
// tables it covers, and the slots: the one the migration filled, and a week ahead.
TEST_F(WebhookCommands, RetentionShowsWhatIsKeptAndForHowLong) {
  emit();  // not fanned out: work pending in the current slot
  auto shown = ok({"retention"});
  EXPECT_EQ(str(shown, "object"), "retention");
  EXPECT_EQ(num(shown, "retention_seconds"), 30 * 86400);
  EXPECT_EQ(str(shown, "retention"), "30 days");
  EXPECT_TRUE(shown["recorded_by_dispatcher_at"].is_null());
  std::vector<std::string> expire;
  for (auto t : shown["expire"].get_array()) expire.emplace_back(std::string_view(t));
  EXPECT_EQ(expire, (std::vector<std::string>{"webhook_delivery_attempts", "webhook_deliveries", "events",
                                              "notifications"}));
  auto slots = shown["partitions"].get_array().value();
  ASSERT_GE(slots.size(), 8u);
  EXPECT_EQ(str(slots.at(0).value(), "name"), "p_older");
  EXPECT_TRUE(slots.at(0).value()["starts_at"].is_null());
  const std::string current = query_value("select name from outbox_partitions where now() >= starts_at and now() < ends_at");
  bool found = false;
  for (auto slot : slots)
    if (str(slot, "name") == current) {
      found = true;
      EXPECT_TRUE(flag(slot, "pending_work"));
      EXPECT_GT(num(slot, "bytes"), 0);
    }
  EXPECT_TRUE(found) << current;
  EXPECT_FALSE(flag(slots.at(slots.size() - 1).value(), "pending_work"));

  query_value("insert into outbox_retention (retention, partition_width) values ('2 hours', '1 hour') returning 1");
  shown = ok({"retention"});
  query_value("delete from outbox_retention returning 1");
  EXPECT_EQ(str(shown, "retention"), "2 hours");
  EXPECT_FALSE(shown["recorded_by_dispatcher_at"].is_null());
}

}  // namespace
}  // namespace storeapi::testing
