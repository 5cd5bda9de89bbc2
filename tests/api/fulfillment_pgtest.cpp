// POST /v1/orders/{id}/fulfillment against the real server: every pair of states, the
// rows a change writes (event, notification) and a refusal does not, tracking details.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "seeded_server.hpp"

using namespace storeapi::testing;

namespace {

const std::vector<std::string> kStates = {"pending", "confirmed", "processing", "ready",   "shipped",
                                          "delivered", "canceled", "returned",  "fulfilled"};

// docs/DESIGN.md §2's transition table, written out independently of the SQL.
const std::map<std::string, std::set<std::string>> kAllowed = {
    {"pending", {"confirmed", "processing", "ready", "shipped", "fulfilled", "canceled"}},
    {"confirmed", {"processing", "ready", "shipped", "fulfilled", "canceled"}},
    {"processing", {"ready", "shipped", "fulfilled", "canceled"}},
    {"ready", {"shipped", "delivered", "fulfilled", "canceled"}},
    {"shipped", {"delivered", "returned"}},
    {"delivered", {"fulfilled", "returned"}},
    {"fulfilled", {"returned"}},
    {"canceled", {}},
    {"returned", {}},
};

class Fulfillment : public SeededServerSuite {
 protected:

  // An order of the seeded store, put in `state` directly.
  std::string order_in(const std::string& state, int nth = 0) {
    std::string id = env->value("select id from orders where store_id = $1 order by order_number offset $2 limit 1",
                                env->store().id, nth);
    env->exec("update orders set fulfillment_status = $2 where id = $1", id, state);
    return id;
  }
  long long events(const std::string& order) { return env->events_of(order); }
  long long notifications(const std::string& order) {
    return env->count("select count(*) from notifications where data->>'order_id' = $1", order);
  }
  HttpResponse fulfill(const std::string& order, const std::string& body) {
    return env->request("POST", "/v1/orders/" + order + "/fulfillment", body);
  }

};

}  // namespace

TEST_F(Fulfillment, EveryPairOfStatesFollowsTheTransitionTable) {
  const std::string order = order_in("pending");
  for (const std::string& from : kStates) {
    for (const std::string& to : kStates) {
      SCOPED_TRACE(from + " -> " + to);
      env->exec("update orders set fulfillment_status = $2 where id = $1", order, from);
      const std::string updated_before = env->value("select updated_at from orders where id = $1", order);
      const long long events_before = events(order);
      const long long notifications_before = notifications(order);

      HttpResponse res = fulfill(order, R"({"fulfillment_status":")" + to + R"("})");
      if (kAllowed.at(from).count(to)) {
        ASSERT_EQ(res.status, 200) << res.body;
        EXPECT_EQ(Json(res.body).get("/fulfillment_status"), to);
        EXPECT_EQ(events(order), events_before + 1);
        EXPECT_EQ(notifications(order), notifications_before + 1);
        // Each pair comes once in this loop: exactly one event records this step.
        EXPECT_EQ(env->count("select count(*) from events where payload->'data'->'object'->>'id' = $1"
                             " and type = 'order.fulfillment_updated'"
                             " and payload->'data'->'object'->>'fulfillment_status' = $2"
                             " and payload->'data'->'previous_attributes'->>'fulfillment_status' = $3",
                             order, to, from),
                  1);
      } else {
        EXPECT_TRUE(is_error(res, 409, "invalid_state_transition"));
        EXPECT_EQ(env->value("select fulfillment_status from orders where id = $1", order), from);
        EXPECT_EQ(env->value("select updated_at from orders where id = $1", order), updated_before);
        EXPECT_EQ(events(order), events_before);
        EXPECT_EQ(notifications(order), notifications_before);
      }
    }
  }
}

TEST_F(Fulfillment, ReturnsTheOrderAsReadsRenderItAndMovesUpdatedAt) {
  const std::string order = order_in("pending", 1);
  const std::string updated_before = env->value("select api.ts(updated_at) from orders where id = $1", order);
  HttpResponse res = fulfill(order, R"({"fulfillment_status":"processing"})");
  ASSERT_EQ(res.status, 200) << res.body;
  // The order's own columns, from the table (its line items and addresses: as the read shows them).
  EXPECT_EQ(env->value("select ($1::jsonb - 'line_items' - 'billing_address' - 'shipping_address')::text",
                       res.body),
            env->value("select jsonb_build_object('object', 'order', 'id', id, 'order_number', order_number,"
                       " 'status', status, 'fulfillment_status', 'processing', 'channel', channel,"
                       " 'currency', currency, 'subtotal', " + sql_amount("subtotal") + ","
                       " 'shipping_total', " + sql_amount("shipping_total") + ", 'tax_total', " + sql_amount("tax_total") + ","
                       " 'total', " + sql_amount("total") + ", 'payment_method', payment_method,"
                       " 'payment_gateway', payment_gateway, 'paid_at', " + sql_timestamp("paid_at") + ","
                       " 'tracking_number', tracking_number, 'tracking_carrier', tracking_carrier,"
                       " 'customer', jsonb_build_object('id', customer_id, 'name', customer_name,"
                       " 'email', customer_email, 'phone', customer_phone),"
                       " 'created_at', " + sql_timestamp("created_at") + ", 'updated_at', " + sql_timestamp("updated_at") +
                       ")::text from orders where id = $1", order));
  EXPECT_EQ(env->request("GET", "/v1/orders/" + order).body, res.body);  // the next read shows it
  Json body(res.body);
  EXPECT_GT(body.get("/updated_at"), updated_before);
  // The event carries the same rendering, and what changed with its old value.
  Json event(env->value("select payload from events where payload->'data'->'object'->>'id' = $1", order));
  EXPECT_EQ(env->value("select (payload->'data'->'object')::text from events"
                       " where payload->'data'->'object'->>'id' = $1", order),
            res.body);
  EXPECT_EQ(event.get("/data/previous_attributes/updated_at"), updated_before);
  EXPECT_EQ(event.get("/store_id"), env->store().id);
  EXPECT_EQ(event.get("/object"), "event");
  EXPECT_EQ(event.get("/id"), "evt_" + env->value("select replace(id::text, '-', '') from events where "
                                                  "payload->'data'->'object'->>'id' = $1", order));
  EXPECT_EQ(event.get("/created_at"),
            env->value("select api.ts(created_at) from events where payload->'data'->'object'->>'id' = $1", order));
}

TEST_F(Fulfillment, NotifiesTheCustomerWithWhatTheEmailNeeds) {
  const std::string order = order_in("ready", 2);
  env->exec("update orders set tracking_number = null, tracking_carrier = null where id = $1", order);
  HttpResponse res =
      fulfill(order, R"({"fulfillment_status":"shipped","tracking_number":"1Z999","tracking_carrier":"UPS"})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(env->value("select template || ' ' || kind || ' ' || recipient || ' ' || locale from notifications"
                       " where data->>'order_id' = $1", order),
            "order_fulfillment_updated customer " +
                env->value("select customer_email from orders where id = $1", order) + " en");
  Json data(env->value("select data from notifications where data->>'order_id' = $1", order));
  EXPECT_EQ(data.get("/order_number"), env->value("select order_number from orders where id = $1", order));
  EXPECT_EQ(data.get("/fulfillment_status"), "shipped");
  EXPECT_EQ(data.get("/previous_fulfillment_status"), "ready");
  EXPECT_EQ(data.get("/tracking_number"), "1Z999");
  EXPECT_EQ(data.get("/tracking_carrier"), "UPS");
  EXPECT_EQ(data.get("/customer_name"), env->value("select customer_name from orders where id = $1", order));
  EXPECT_EQ(data.get("/store_name"), env->value("select name from stores where id = $1", env->store().id));
}

TEST_F(Fulfillment, TrackingDetailsAreSetWhenSentAndKeptOtherwise) {
  const std::string order = order_in("pending", 3);
  env->exec("update orders set tracking_number = null, tracking_carrier = null where id = $1", order);
  HttpResponse shipped =
      fulfill(order, R"({"fulfillment_status":"shipped","tracking_number":"TRK-1","tracking_carrier":"DHL"})");
  ASSERT_EQ(shipped.status, 200) << shipped.body;
  EXPECT_EQ(Json(shipped.body).get("/tracking_number"), "TRK-1");
  EXPECT_EQ(Json(shipped.body).get("/tracking_carrier"), "DHL");
  Json first(env->value("select payload from events where payload->'data'->'object'->>'id' = $1", order));
  EXPECT_EQ(first.get("/data/previous_attributes/tracking_number"), "null");

  HttpResponse delivered = fulfill(order, R"({"fulfillment_status":"delivered"})");
  ASSERT_EQ(delivered.status, 200) << delivered.body;
  EXPECT_EQ(Json(delivered.body).get("/tracking_number"), "TRK-1");
  EXPECT_EQ(Json(delivered.body).get("/tracking_carrier"), "DHL");
  Json second(env->value("select payload from events where payload->'data'->'object'->>'id' = $1"
                         " and payload->'data'->'object'->>'fulfillment_status' = 'delivered'", order));
  EXPECT_FALSE(second.has("/data/previous_attributes/tracking_number"));  // unchanged
  EXPECT_EQ(second.get("/data/previous_attributes/fulfillment_status"), "shipped");
}

TEST_F(Fulfillment, UnknownOrAnotherStoresOrderIsNotFound) {
  HttpResponse unknown = fulfill("3fa85f64-5717-4562-b3fc-2c963f66afa6", R"({"fulfillment_status":"shipped"})");
  EXPECT_TRUE(is_error(unknown, 404, "resource_not_found", "id"));

  auto [other, other_key] = env->another_store();
  const std::string foreign =
      env->value("select id from orders where store_id = $1 and fulfillment_status = 'pending' limit 1", other.id);
  const std::string fingerprint = env->database().fingerprint();
  EXPECT_TRUE(is_error(fulfill(foreign, R"({"fulfillment_status":"confirmed"})"), 404, "resource_not_found", "id"));
  EXPECT_EQ(env->database().fingerprint(), fingerprint);
  // Its own store's key reaches it.
  EXPECT_EQ(env->request_as(other_key.key, "POST", "/v1/orders/" + foreign + "/fulfillment",
                            R"({"fulfillment_status":"confirmed"})")
                .status,
            200);
}
