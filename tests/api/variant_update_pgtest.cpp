// PATCH /v1/products/{id}/variants/{variant_id} against the real server: only sent
// fields change, discount rules on the resulting variant, the whole product returned
// with its price range recomputed, product.updated for real changes only.
#include <gtest/gtest.h>

#include <string>

#include "seeded_server.hpp"

using namespace storeapi::testing;

namespace {

class VariantUpdate : public SeededServerSuite {
 protected:

  // The nth live variant of a live product, given `price` and no discount.
  void pick(int nth, const std::string& price = "20.00") {
    const VariantRef picked = env->live_variant(nth);
    product = picked.product;
    variant = picked.variant;
    env->exec("update variants set price = $2, discount_type = null, discount_value = 0 where id = $1", variant,
              price);
    events_before = all_events();
  }
  HttpResponse patch(const std::string& body) {
    return env->request("PATCH", "/v1/products/" + product + "/variants/" + variant, body);
  }
  // The variant as the product shows it.
  std::string shown(const std::string& field) {
    return env->value("select jsonb_path_query_first(api.product_json(p)::jsonb,"
                      " ('$.variants[*] ? (@.id == \"' || $2 || '\")')::jsonpath) ->> $3"
                      " from products p where p.id = $1", product, variant, field);
  }
  // product.updated events of the product since pick().
  long long events() { return all_events() - events_before; }
  long long all_events() { return env->events_of(product, "product.updated"); }
  std::string state() {
    return env->value("select v.price || ' ' || coalesce(v.discount_type, '-') || ' ' || v.discount_value || ' '"
                      " || v.updated_at || ' ' || p.updated_at from variants v join products p"
                      " on p.store_id = v.store_id and p.id = v.product_id where v.id = $1", variant);
  }

  std::string product, variant;
  long long events_before = 0;
};

}  // namespace

TEST_F(VariantUpdate, PriceChangeReturnsTheWholeProductWithItsRangeRecomputed) {
  pick(0);
  const std::string product_updated = env->value("select api.ts(updated_at) from products where id = $1", product);
  HttpResponse res = patch(R"({"price":"0.01"})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.body, env->value("select api.product_json(p) from products p where id = $1", product));
  Json body(res.body);
  EXPECT_EQ(body.get("/object"), "product");
  EXPECT_EQ(body.get("/min_price"), "0.01");  // below every seeded price
  // The next read shows it (the product's stored document was rendered again).
  EXPECT_EQ(env->request("GET", "/v1/products/" + product).body, res.body);
  EXPECT_EQ(shown("price"), "0.01");
  EXPECT_GT(body.get("/updated_at"), product_updated);
  EXPECT_EQ(env->value("select api.ts(updated_at) from variants where id = $1", variant), body.get("/updated_at"));
  EXPECT_EQ(events(), 1);
  Json event(env->value("select payload from events where type = 'product.updated'"
                        " and payload->'data'->'object'->>'id' = $1 and payload->'data'->'object'->>'updated_at' = $2",
                        product, body.get("/updated_at")));
  EXPECT_EQ(env->value("select $1::jsonb = $2::jsonb", event.get("/data/object"), res.body), "t");
  EXPECT_EQ(event.get("/data/previous_attributes/updated_at"), product_updated);
  EXPECT_TRUE(event.has("/data/previous_attributes/variants"));
  EXPECT_TRUE(event.has("/data/previous_attributes/min_price"));
  // Products have no customer to notify.
  EXPECT_EQ(env->count("select count(*) from notifications where store_id = $1 and kind = 'customer'",
                       env->store().id),
            0);
}

TEST_F(VariantUpdate, DiscountsApplyToTheShownPriceRange) {
  pick(1, "12.50");
  HttpResponse res = patch(R"({"discount_type":"percentage","discount_value":"10"})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(shown("discount_type"), "percentage");
  EXPECT_EQ(shown("discount_value"), "10.00");
  EXPECT_EQ(shown("price"), "12.50");
  EXPECT_EQ(env->value("select min(api.discounted_price(price, discount_type, discount_value)) = $2::numeric"
                       " from variants where id = $1", variant, "11.25"), "t");

  // A type alone keeps the stored value; a value alone keeps the stored type.
  ASSERT_EQ(patch(R"({"discount_type":"fixed"})").status, 200);
  EXPECT_EQ(shown("discount_type") + " " + shown("discount_value"), "fixed 10.00");
  ASSERT_EQ(patch(R"({"discount_value":"2.5"})").status, 200);
  EXPECT_EQ(shown("discount_type") + " " + shown("discount_value"), "fixed 2.50");

  // null removes the discount and zeroes its value.
  ASSERT_EQ(patch(R"({"discount_type":null})").status, 200);
  EXPECT_EQ(shown("discount_type") + " " + shown("discount_value"), "<null> 0.00");
  EXPECT_EQ(events(), 4);
}

TEST_F(VariantUpdate, DiscountThatLeavesNothingIs422AndChangesNothing) {
  pick(2, "20.00");
  const std::string before = state();
  for (const char* body : {R"({"discount_type":"fixed","discount_value":"20"})",
                           R"({"discount_type":"fixed","discount_value":"25.00"})",
                           R"({"discount_type":"percentage","discount_value":"100"})",
                           R"({"discount_type":"percentage","discount_value":"250.5"})",
                           R"({"price":"0.01","discount_type":"percentage","discount_value":"99.99"})"}) {
    EXPECT_TRUE(is_error(patch(body), 422, "discount_exceeds_price", "discount_value")) << body;
  }
  // A new price under an existing fixed discount, too.
  ASSERT_EQ(patch(R"({"discount_type":"fixed","discount_value":"5"})").status, 200);
  const std::string discounted = state();
  EXPECT_TRUE(is_error(patch(R"({"price":"5.00"})"), 422, "discount_exceeds_price", "discount_value"));
  EXPECT_EQ(state(), discounted);
  EXPECT_NE(discounted, before);
  EXPECT_EQ(events(), 1);
}

TEST_F(VariantUpdate, DiscountValueAndTypeGoTogether) {
  pick(3, "20.00");
  const std::string before = state();
  // A type needs a value above zero; a non-zero value needs a type.
  for (const char* body : {R"({"discount_type":"percentage"})", R"({"discount_type":"fixed","discount_value":"0"})",
                           R"({"discount_value":"5"})", R"({"discount_type":null,"discount_value":"5"})"}) {
    EXPECT_TRUE(is_error(patch(body), 400, "parameter_invalid", "discount_value")) << body;
  }
  EXPECT_EQ(state(), before);
  EXPECT_EQ(events(), 0);
}

TEST_F(VariantUpdate, NothingToChangeReturnsTheProductAndFiresNothing) {
  pick(4, "20.00");
  const std::string before = state();
  const std::string rendered =
      env->value("select api.product_json(p) from products p where id = $1", product);
  for (const char* body : {"", "{}", R"({"price":"20"})", R"({"discount_type":null})", R"({"discount_value":"0"})"}) {
    HttpResponse res = patch(body);
    ASSERT_EQ(res.status, 200) << body << ": " << res.body;
    EXPECT_EQ(res.body, rendered) << body;
  }
  EXPECT_EQ(state(), before);
  EXPECT_EQ(events(), 0);
}

TEST_F(VariantUpdate, FormatsAreCheckedBeforeAnythingRuns) {
  pick(5, "20.00");
  const std::string before = state();
  for (const auto& [body, param] : std::initializer_list<std::pair<const char*, const char*>>{
           {R"({"price":20})", "price"},
           {R"({"price":"20.001"})", "price"},
           {R"({"price":"123456789"})", "price"},
           {R"({"price":"-1"})", "price"},
           {R"({"price":"0"})", "price"},
           {R"({"price":"0.00"})", "price"},
           {R"({"price":null})", "price"},
           {R"({"discount_type":"half"})", "discount_type"},
           {R"({"discount_type":5})", "discount_type"},
           {R"({"discount_value":5})", "discount_value"},
           {R"({"discount_value":null})", "discount_value"},
           {R"({"discount_value":"1e2"})", "discount_value"},
       }) {
    EXPECT_TRUE(is_error(patch(body), 400, "parameter_invalid", param)) << body;
  }
  EXPECT_TRUE(is_error(patch(R"({"price":"1","stock":3})"), 400, "parameter_unknown", "stock"));
  EXPECT_EQ(state(), before);
}

TEST_F(VariantUpdate, DeletedOrMismatchedIdsAreNotFound) {
  const std::string deleted_variant = env->value(
      "select v.product_id || ' ' || v.id from variants v join products p on p.store_id = v.store_id"
      " and p.id = v.product_id where v.store_id = $1 and v.deleted_at is not null and p.deleted_at is null limit 1",
      env->store().id);
  const std::string deleted_product = env->value(
      "select p.id || ' ' || v.id from variants v join products p on p.store_id = v.store_id"
      " and p.id = v.product_id where v.store_id = $1 and p.deleted_at is not null limit 1",
      env->store().id);
  pick(6);
  const std::string other_product = env->value(
      "select id from products where store_id = $1 and id <> $2 and deleted_at is null limit 1", env->store().id,
      product);
  for (const std::string& pair : {deleted_variant, deleted_product, other_product + " " + variant,
                                  product + " 3fa85f64-5717-4562-b3fc-2c963f66afa6"}) {
    const std::string path = "/v1/products/" + pair.substr(0, 36) + "/variants/" + pair.substr(37);
    EXPECT_TRUE(is_error(env->request("PATCH", path, R"({"price":"9.99"})"), 404, "resource_not_found")) << pair;
  }
}
