// POST /v1/bookings/{id}/accept and /cancel against the real server: every action from
// every state, the event and notification of a change, nothing for a refusal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "seeded_server.hpp"

using namespace storeapi::testing;

namespace {

const std::vector<std::string> kStates = {"pending", "accepted", "canceled", "initiated"};

class Bookings : public SeededServerSuite {
 protected:

  std::string booking(int nth) {
    return env->value("select id from bookings where store_id = $1 order by created_at, id offset $2 limit 1",
                      env->store().id, nth);
  }
  long long events(const std::string& id) { return env->events_of(id); }
  long long notifications(const std::string& id) {
    return env->count("select count(*) from notifications where data->>'booking_id' = $1", id);
  }
  long long templated(const std::string& id, const std::string& name) {
    return env->count("select count(*) from notifications where data->>'booking_id' = $1"
                      " and template = $2 and kind = 'customer'", id, name);
  }

};

}  // namespace

TEST_F(Bookings, EveryActionFromEveryState) {
  const std::string id = booking(0);
  for (const std::string action : {"accept", "cancel"}) {
    for (const std::string& from : kStates) {
      SCOPED_TRACE(action + " from " + from);
      env->exec("update bookings set status = $2 where id = $1", id, from);
      const long long events_before = events(id);
      const long long notifications_before = notifications(id);
      const long long templated_before = templated(id, action == "accept" ? "booking_accepted" : "booking_canceled");
      const bool allowed = action == "accept" ? (from == "pending" || from == "initiated") : from != "canceled";
      const std::string to = action == "accept" ? "accepted" : "canceled";

      HttpResponse res = env->request("POST", "/v1/bookings/" + id + "/" + action);
      if (allowed) {
        ASSERT_EQ(res.status, 200) << res.body;
        EXPECT_EQ(env->canonical_json(res.body),
                  env->value("select jsonb_build_object('object', 'booking', 'id', id, 'status', $2::text,"
                             " 'date', to_char(booking_date, 'YYYY-MM-DD'), 'time', to_char(booking_time, 'HH24:MI'),"
                             " 'timezone', timezone, 'duration_minutes', duration_minutes,"
                             " 'meeting_method', meeting_method, 'meeting_link', meeting_link, 'order_id', order_id,"
                             " 'product_id', product_id, 'product_name', product_name,"
                             " 'customer', jsonb_build_object('id', customer_id, 'name', customer_name,"
                             " 'email', customer_email, 'phone', customer_phone),"
                             " 'created_at', " + sql_timestamp("created_at") + ")::text from bookings where id = $1",
                             id, to));
        EXPECT_EQ(env->request("GET", "/v1/bookings/" + id).body, res.body);  // the next read shows it
        EXPECT_EQ(Json(res.body).get("/status"), to);
        EXPECT_EQ(events(id), events_before + 1);
        EXPECT_EQ(notifications(id), notifications_before + 1);
        EXPECT_EQ(env->count("select count(*) from events where payload->'data'->'object'->>'id' = $1"
                             " and type = $2 and payload->'data'->'previous_attributes'->>'status' = $3",
                             id, "booking." + to, from),
                  1);
        EXPECT_EQ(templated(id, "booking_" + to), templated_before + 1);
      } else {
        EXPECT_TRUE(is_error(res, 409, "invalid_state_transition"));
        EXPECT_EQ(env->value("select status from bookings where id = $1", id), from);
        EXPECT_EQ(events(id), events_before);
        EXPECT_EQ(notifications(id), notifications_before);
      }
    }
  }
}

TEST_F(Bookings, NotifiesTheCustomerWithWhatTheEmailNeeds) {
  const std::string id = booking(1);
  env->exec("update bookings set status = 'pending' where id = $1", id);
  ASSERT_EQ(env->request("POST", "/v1/bookings/" + id + "/accept").status, 200);
  EXPECT_EQ(env->value("select recipient || ' ' || locale from notifications where data->>'booking_id' = $1", id),
            env->value("select customer_email from bookings where id = $1", id) + " en");
  Json data(env->value("select data from notifications where data->>'booking_id' = $1", id));
  Json booking(env->value("select api.booking_json(b) from bookings b where id = $1", id));
  EXPECT_EQ(data.get("/booking_date"), booking.get("/date"));
  EXPECT_EQ(data.get("/booking_time"), booking.get("/time"));
  EXPECT_EQ(data.get("/timezone"), booking.get("/timezone"));
  EXPECT_EQ(data.get("/product_name"), booking.get("/product_name"));
  EXPECT_EQ(data.get("/customer_name"), booking.get("/customer/name"));
  EXPECT_EQ(data.get("/meeting_link"), booking.get("/meeting_link"));
  EXPECT_EQ(data.get("/duration_minutes"), booking.get("/duration_minutes"));
  EXPECT_EQ(data.get("/store_name"), env->value("select name from stores where id = $1", env->store().id));
}

TEST_F(Bookings, TakeNoFields) {
  const std::string id = booking(2);
  env->exec("update bookings set status = 'pending' where id = $1", id);
  const std::string fingerprint = env->database().fingerprint();
  EXPECT_TRUE(is_error(env->request("POST", "/v1/bookings/" + id + "/accept", R"({"note":"hi"})"), 400,
                       "parameter_unknown", "note"));
  EXPECT_TRUE(is_error(env->request("POST", "/v1/bookings/" + id + "/cancel", R"({"reason":null})"), 400,
                       "parameter_unknown", "reason"));
  EXPECT_EQ(env->database().fingerprint(), fingerprint);
  // An empty object is no field at all.
  EXPECT_EQ(env->request("POST", "/v1/bookings/" + id + "/accept", "{}").status, 200);
}

TEST_F(Bookings, UnknownBookingIsNotFound) {
  for (const char* action : {"accept", "cancel"}) {
    EXPECT_TRUE(is_error(env->request("POST", std::string("/v1/bookings/3fa85f64-5717-4562-b3fc-2c963f66afa6/") + action),
                         404, "resource_not_found", "id"));
  }
}
