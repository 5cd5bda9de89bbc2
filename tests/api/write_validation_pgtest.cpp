// Validation shared by the write endpoints, against the real server: query parameters
// (none taken), content type, JSON, unknown / missing / invalid fields with their
// `param`, and docs/DESIGN.md's check order (scope, then validation, then existence, then state).
// Refused requests change nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "seeded_server.hpp"

using namespace storeapi::testing;

namespace {

constexpr const char* kUnknownId = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

class WriteValidation : public SeededServerSuite {
 protected:
  static void SetUpTestSuite() {
    SeededServerSuite::SetUpTestSuite();
    order = new std::string(env->value("select id from orders where store_id = $1 limit 1", env->store().id));
    env->exec("update orders set fulfillment_status = 'pending' where id = $1", *order);
  }
  static void TearDownTestSuite() {
    delete order;
    SeededServerSuite::TearDownTestSuite();
  }

  static HttpResponse fulfill(const std::string& body, Headers headers = {}) {
    return env->request("POST", "/v1/orders/" + *order + "/fulfillment", body, std::move(headers));
  }

  // Every write endpoint on ids of the seeded store.
  static std::vector<std::pair<std::string, std::string>> endpoints() {
    const std::string booking = env->value("select id from bookings where store_id = $1 limit 1", env->store().id);
    const std::string variant = env->value(
        "select v.product_id || '/variants/' || v.id from variants v where v.store_id = $1 limit 1", env->store().id);
    return {{"POST", "/v1/orders/" + *order + "/fulfillment"},
            {"POST", "/v1/bookings/" + booking + "/accept"},
            {"POST", "/v1/bookings/" + booking + "/cancel"},
            {"PATCH", "/v1/products/" + variant},
            {"POST", "/v1/products/" + variant + "/stock"}};
  }

  static std::string* order;
};

std::string* WriteValidation::order = nullptr;

}  // namespace

TEST_F(WriteValidation, BodiesMustBeJsonObjects) {
  const std::string fingerprint = env->database().fingerprint();
  for (const auto& [method, path] : endpoints()) {
    SCOPED_TRACE(method + " " + path);
    EXPECT_TRUE(is_error(env->request(method, path, "{}", {{"Content-Type", "text/plain"}}), 415,
                         "unsupported_media_type"));
    EXPECT_TRUE(is_error(env->request(method, path, "x=1", {{"Content-Type", "application/x-www-form-urlencoded"}}),
                         415, "unsupported_media_type"));
    for (const char* body : {"nope", "[]", "\"{}\"", "{", "{} {}", " ", "{\"a\":1,}"}) {
      EXPECT_TRUE(is_error(env->request(method, path, body), 400, "invalid_json")) << body;
    }
    EXPECT_TRUE(is_error(env->request(method, path, R"({"surprise":true})"), 400, "parameter_unknown", "surprise"));
  }
  EXPECT_EQ(env->database().fingerprint(), fingerprint);
}

TEST_F(WriteValidation, FulfillmentFields) {
  const std::string fingerprint = env->database().fingerprint();
  EXPECT_TRUE(is_error(fulfill("{}"), 400, "parameter_missing", "fulfillment_status"));
  EXPECT_TRUE(is_error(fulfill(""), 400, "parameter_missing", "fulfillment_status"));
  EXPECT_TRUE(is_error(fulfill(R"({"tracking_number":"T1"})"), 400, "parameter_missing", "fulfillment_status"));
  for (const auto& [body, param] : std::initializer_list<std::pair<std::string, const char*>>{
           {R"({"fulfillment_status":"lost"})", "fulfillment_status"},
           {R"({"fulfillment_status":"Shipped"})", "fulfillment_status"},
           {R"({"fulfillment_status":null})", "fulfillment_status"},
           {R"({"fulfillment_status":3})", "fulfillment_status"},
           {R"({"fulfillment_status":"shipped","fulfillment_status":"shipped"})", "fulfillment_status"},
           {R"({"fulfillment_status":"shipped","tracking_number":""})", "tracking_number"},
           {R"({"fulfillment_status":"shipped","tracking_number":")" + std::string(101, '1') + "\"}",
            "tracking_number"},
           {R"({"fulfillment_status":"shipped","tracking_number":null})", "tracking_number"},
           {R"({"fulfillment_status":"shipped","tracking_carrier":""})", "tracking_carrier"},
           {R"({"fulfillment_status":"shipped","tracking_carrier":42})", "tracking_carrier"},
       }) {
    EXPECT_TRUE(is_error(fulfill(body), 400, "parameter_invalid", param)) << body;
  }
  EXPECT_EQ(env->database().fingerprint(), fingerprint);
  // 100 characters and a charset parameter are fine.
  HttpResponse ok = fulfill(R"({"fulfillment_status":"confirmed","tracking_number":")" + std::string(100, '1') +
                                R"(","tracking_carrier":"C"})",
                            {{"Content-Type", "application/json; charset=utf-8"}});
  EXPECT_EQ(ok.status, 200) << ok.body;
}

TEST_F(WriteValidation, ChecksRunInDesignOrder) {
  // Scope before validation: a read-only key is refused whatever the body.
  const TestKey reader = env->database().create_key(env->store().id, "read");
  EXPECT_TRUE(is_error(env->request_as(reader.key, "POST", "/v1/orders/" + *order + "/fulfillment", "nope"), 403,
                       "insufficient_scope"));
  const TestKey orders_only = env->database().create_key(env->store().id, "custom", "orders:write");
  for (const auto& [method, path] : endpoints()) {
    if (path.rfind("/v1/orders/", 0) == 0) continue;
    EXPECT_TRUE(is_error(env->request_as(orders_only.key, method, path, "{}"), 403, "insufficient_scope")) << path;
  }
  // A malformed id in the path is a parameter.
  EXPECT_TRUE(is_error(env->request("POST", "/v1/orders/42/fulfillment", R"({"fulfillment_status":"shipped"})"), 400,
                       "parameter_invalid", "id"));
  EXPECT_TRUE(is_error(env->request("POST", std::string("/v1/products/") + kUnknownId + "/variants/x/stock",
                                    R"({"mode":"set","quantity":1})"),
                       400, "parameter_invalid", "variant_id"));
  // Validation before existence, existence before state.
  const std::string unknown_order = std::string("/v1/orders/") + kUnknownId + "/fulfillment";
  EXPECT_TRUE(is_error(env->request("POST", unknown_order, R"({"fulfillment_status":"lost"})"), 400,
                       "parameter_invalid", "fulfillment_status"));
  EXPECT_TRUE(is_error(env->request("POST", unknown_order, R"({"fulfillment_status":"pending"})"), 404,
                       "resource_not_found", "id"));
  EXPECT_TRUE(is_error(env->request("POST", std::string("/v1/products/") + kUnknownId + "/variants/" + kUnknownId +
                                                "/stock",
                                    R"({"mode":"adjust","quantity":0})"),
                       400, "parameter_invalid", "quantity"));
  // Writes take POST (or PATCH) only.
  HttpResponse wrong_method = env->request("PUT", "/v1/orders/" + *order + "/fulfillment", "{}");
  EXPECT_TRUE(is_error(wrong_method, 405, "method_not_allowed"));
  EXPECT_EQ(wrong_method.header("Allow"), "POST, OPTIONS");
}

// Writes take no query parameters: refused like the reads by id (after the path, before
// the body), before any database work and before the Idempotency-Key is taken, so the
// same key without the query runs the write for real.
TEST_F(WriteValidation, QueryParametersAreRefusedBeforeTheKeyIsTaken) {
  const std::string booking = env->value("select id from bookings where store_id = $1 order by id limit 1",
                                         env->store().id);
  const VariantRef variant = env->live_variant(0);
  env->exec("update orders set fulfillment_status = 'pending' where id = $1", *order);
  env->exec("update bookings set status = 'initiated' where id = $1", booking);
  env->exec("update variants set stock = 10, price = 20, discount_type = null, discount_value = 0 where id = $1",
            variant.variant);
  struct Write {
    std::string method, path, body;
  };
  // Each valid and allowed in the state the ones before leave.
  const std::vector<Write> writes = {
      {"POST", "/v1/orders/" + *order + "/fulfillment", R"({"fulfillment_status":"confirmed"})"},
      {"POST", "/v1/bookings/" + booking + "/accept", ""},
      {"POST", "/v1/bookings/" + booking + "/cancel", ""},
      {"PATCH", variant.path(), R"({"price":"12.50"})"},
      {"POST", variant.path() + "/stock", R"({"mode":"adjust","quantity":-1})"},
  };
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const Write& w = writes[i];
    SCOPED_TRACE(w.method + " " + w.path);
    const std::string key = "query-refused-" + std::to_string(i);
    const Headers keyed = {{"Idempotency-Key", key}};
    const std::string fingerprint = env->database().fingerprint();
    EXPECT_TRUE(is_error(env->request(w.method, w.path + "?foo=1", w.body, keyed), 400, "parameter_unknown", "foo"));
    EXPECT_TRUE(is_error(env->request(w.method, w.path + "?a=%zz", w.body, keyed), 400, "parameter_invalid", "a"));
    // Before the body and the key's format.
    EXPECT_TRUE(is_error(env->request(w.method, w.path + "?foo=1", "nope", keyed), 400, "parameter_unknown", "foo"));
    EXPECT_TRUE(is_error(env->request(w.method, w.path + "?foo=1", w.body, {{"Idempotency-Key", ""}}), 400,
                         "parameter_unknown", "foo"));
    // Nothing written, the key not taken (nor bound to anything).
    EXPECT_EQ(env->database().fingerprint(), fingerprint);
    EXPECT_EQ(env->count("select count(*) from idempotency_keys where store_id = $1 and key = $2", env->store().id,
                         key),
              0);

    HttpResponse ran = env->request(w.method, w.path, w.body, keyed);
    EXPECT_EQ(ran.status, 200) << ran.body;
    EXPECT_FALSE(ran.header("Idempotent-Replayed"));
  }
  EXPECT_EQ(env->value("select fulfillment_status from orders where id = $1", *order), "confirmed");
  EXPECT_EQ(env->value("select status from bookings where id = $1", booking), "canceled");
  EXPECT_EQ(env->value("select price from variants where id = $1", variant.variant), "12.50");
  EXPECT_EQ(env->value("select stock from variants where id = $1", variant.variant), "9");
}

TEST_F(WriteValidation, EmptyBodiesNeedNoContentType) {
  const std::string booking =
      env->value("select id from bookings where store_id = $1 order by id desc limit 1", env->store().id);
  env->exec("update bookings set status = 'initiated' where id = $1", booking);
  HttpClient client(env->port());
  HttpResponse res = client.request("POST", "/v1/bookings/" + booking + "/accept",
                                    {{"Authorization", "Bearer " + env->key().key}, {"Content-Length", "0"}});
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(Json(res.body).get("/status"), "accepted");
}
