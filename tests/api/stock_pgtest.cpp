// POST /v1/products/{id}/variants/{variant_id}/stock against the real server: set and
// adjust, the floor at zero under concurrency, tracking, and the stock history.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "seeded_server.hpp"
#include "support/poll.hpp"
#include "support/run_together.hpp"

using namespace storeapi::testing;

namespace {

class Stock : public SeededServerSuite {
 protected:

  // The nth live variant of a live product, with `stock` (nullopt: untracked).
  void pick(int nth, std::optional<int> stock) {
    const VariantRef picked = env->live_variant(nth);
    product = picked.product;
    variant = picked.variant;
    env->exec("update variants set stock = $2 where id = $1", variant, stock);
    movements_before = movements();
    events_before = events();
  }
  std::string path() const { return "/v1/products/" + product + "/variants/" + variant + "/stock"; }
  HttpResponse post(const std::string& body) { return env->request("POST", path(), body); }
  std::string stock() { return env->value("select stock from variants where id = $1", variant); }
  long long movements() { return env->count("select count(*) from stock_movements where variant_id = $1", variant); }
  long long events() { return env->events_of(product, "product.updated"); }
  // The newest movement: "mode quantity delta before after note source api_key_id".
  std::string last_movement() {
    return env->value("select concat_ws(' ', mode, quantity, delta, coalesce(before::text, '-'), after,"
                      " coalesce(note, '-'), source, api_key_id) from stock_movements where variant_id = $1"
                      " order by created_at desc, after limit 1", variant);
  }

  std::string product, variant;
  long long movements_before = 0, events_before = 0;
};

}  // namespace

TEST_F(Stock, AdjustAddsAndReturnsTheVariant) {
  pick(0, 10);
  HttpResponse res = post(R"({"mode":"adjust","quantity":-3,"note":"sold at the fair"})");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(env->canonical_json(res.body),
            env->value("select jsonb_build_object('object', 'product_variant', 'id', id, 'product_id', product_id,"
                       " 'title', title, 'sku', sku, 'barcode', barcode, 'price', " + sql_amount("price") + ","
                       " 'discount_type', discount_type, 'discount_value', " + sql_amount("discount_value") + ","
                       " 'stock', 7, 'low_stock_threshold', low_stock_threshold, 'option1', option1,"
                       " 'option2', option2, 'option3', option3, 'position', position, 'image_url', image_url,"
                       " 'created_at', " + sql_timestamp("created_at") + ", 'updated_at', " + sql_timestamp("updated_at") +
                       ")::text from variants where id = $1", variant));
  EXPECT_EQ(Json(res.body).get("/object"), "product_variant");
  EXPECT_EQ(Json(res.body).get("/stock"), "7");
  EXPECT_EQ(last_movement(), "adjust -3 -3 10 7 sold at the fair api " + env->key().id);
  EXPECT_EQ(movements(), movements_before + 1);
  EXPECT_EQ(events(), events_before + 1);
  // product.updated carries the whole product, the variant's old stock among the old values.
  Json event(env->value("select payload from events where type = 'product.updated'"
                        " and payload->'data'->'object'->>'id' = $1 order by created_at desc limit 1", product));
  EXPECT_EQ(event.get("/data/object/id"), product);
  EXPECT_EQ(env->value("select $1::jsonb @> jsonb_build_array(jsonb_build_object('id', $2::text, 'stock', 10))",
                       event.get("/data/previous_attributes/variants"), variant),
            "t");
  // The product moved with its variant, and the next read of the product shows both.
  EXPECT_EQ(env->value("select p.updated_at = v.updated_at from variants v join products p"
                       " on p.store_id = v.store_id and p.id = v.product_id where v.id = $1", variant),
            "t");
  HttpResponse read = env->request("GET", "/v1/products/" + product);
  ASSERT_EQ(read.status, 200);
  EXPECT_EQ(env->value("select $1::jsonb = $2::jsonb", read.body, event.get("/data/object")), "t");
  EXPECT_NE(read.body.find(res.body), std::string::npos) << "the product shows the variant as the write returned it";
}

TEST_F(Stock, SetStartsTrackingAndIsRecordedEvenWithoutChange) {
  pick(1, std::nullopt);
  EXPECT_TRUE(is_error(post(R"({"mode":"adjust","quantity":5})"), 409, "stock_not_tracked"));
  EXPECT_EQ(stock(), "<null>");
  EXPECT_EQ(movements(), movements_before);

  HttpResponse set = post(R"({"mode":"set","quantity":4})");
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(Json(set.body).get("/stock"), "4");
  EXPECT_EQ(last_movement(), "set 4 4 - 4 - api " + env->key().id);
  EXPECT_EQ(events(), events_before + 1);

  // A set to the current value is history too, but no change: no event, no updated_at.
  const std::string updated = env->value("select updated_at from variants where id = $1", variant);
  HttpResponse same = post(R"({"mode":"set","quantity":4,"note":"counted"})");
  ASSERT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(movements(), movements_before + 2);
  EXPECT_EQ(env->count("select count(*) from stock_movements where variant_id = $1 and note = 'counted'"
                       " and delta = 0 and before = 4 and after = 4", variant),
            1);
  EXPECT_EQ(events(), events_before + 1);
  EXPECT_EQ(env->value("select updated_at from variants where id = $1", variant), updated);

  ASSERT_EQ(post(R"({"mode":"set","quantity":0})").status, 200);
  EXPECT_EQ(stock(), "0");
}

// A stock change brings its product's document up to date by replacing the variant in
// it (api.variant_changed); the next read shows it (the suite's TearDown also compares
// every document with a fresh rendering).
TEST_F(Stock, TheProductsDocumentShowsTheNewStock) {
  pick(6, 3);
  HttpResponse res = post(R"({"mode":"adjust","quantity":4})");
  ASSERT_EQ(res.status, 200) << res.body;
  HttpResponse read = env->request("GET", "/v1/products/" + product);
  ASSERT_EQ(read.status, 200);
  EXPECT_NE(read.body.find(res.body), std::string::npos) << read.body;
  EXPECT_EQ(env->value("select doc = api.product_json(p) from products p where id = $1", product), "t");
}

// Only api.variant_changed may set a product's document itself: set by any other update
// (by hand, say), it is rendered as always.
TEST_F(Stock, ADocumentSetByHandIsRenderedAgain) {
  pick(7, 3);
  env->exec("update products set doc = '{}' where id = $1", product);
  EXPECT_EQ(env->value("select doc = api.product_json(p) from products p where id = $1", product), "t");
}

// A document that does not hold the variant's old rendering (stale: say, written by an
// older renderer) cannot be patched: the variant's change renders the product whole.
TEST_F(Stock, AStaleDocumentIsRenderedWholeAtTheNextChange) {
  pick(8, 3);
  env->exec("with claim as (select set_config('storeapi.product_doc_by', 'variant_changed', true))"
            " update products set doc = '{\"stale\":true}' where id = $1 and exists (select from claim)",
            product);
  ASSERT_EQ(env->value("select doc from products where id = $1", product), R"({"stale":true})");
  ASSERT_EQ(post(R"({"mode":"adjust","quantity":1})").status, 200);
  EXPECT_EQ(env->value("select doc = api.product_json(p) from products p where id = $1", product), "t");
}

// Counts NOTIFYs on the dispatchers' channel.
class WakeUps : public pqxx::notification_receiver {
 public:
  explicit WakeUps(pqxx::connection_base& c) : pqxx::notification_receiver(c, "storeapi_events") {}
  void operator()(const std::string&, int) override { ++count; }
  int count = 0;
};

TEST_F(Stock, AChangeWakesTheDispatchers) {
  pick(5, 1);
  auto conn = env->database().connect();
  WakeUps wake_ups(*conn);
  ASSERT_EQ(post(R"({"mode":"adjust","quantity":1})").status, 200);
  EXPECT_TRUE(eventually([&] {
    conn->get_notifs();
    return wake_ups.count > 0;
  }, std::chrono::seconds(10)));
}

TEST_F(Stock, NeverBelowZero) {
  pick(2, 2);
  EXPECT_TRUE(is_error(post(R"({"mode":"adjust","quantity":-3})"), 409, "insufficient_stock", "quantity"));
  EXPECT_EQ(stock(), "2");
  EXPECT_EQ(movements(), movements_before);
  EXPECT_EQ(events(), events_before);
  ASSERT_EQ(post(R"({"mode":"adjust","quantity":-2})").status, 200);
  EXPECT_EQ(stock(), "0");
  EXPECT_TRUE(is_error(post(R"({"mode":"adjust","quantity":-1})"), 409, "insufficient_stock", "quantity"));
}

TEST_F(Stock, FiftyConcurrentDecrementsOfTwentyNeverOversell) {
  pick(3, 20);
  constexpr int kRequests = 50;
  std::atomic<int> sold{0}, refused{0}, other{0};
  run_together(kRequests, [&](int) {
    HttpResponse res = post(R"({"mode":"adjust","quantity":-1})");
    if (res.status == 200) {
      ++sold;
    } else if (is_error(res, 409, "insufficient_stock", "quantity")) {
      ++refused;
    } else {
      ++other;
    }
  });
  EXPECT_EQ(sold, 20);
  EXPECT_EQ(refused, 30);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(stock(), "0");
  EXPECT_EQ(movements(), movements_before + 20);
  EXPECT_EQ(events(), events_before + 20);
  // The history is a chain: every after is the next before, from 20 down to 0.
  EXPECT_EQ(env->value("select string_agg(before || '>' || after, ',' order by before desc) from stock_movements"
                       " where variant_id = $1 and mode = 'adjust'", variant),
            "20>19,19>18,18>17,17>16,16>15,15>14,14>13,13>12,12>11,11>10,10>9,9>8,8>7,7>6,6>5,5>4,4>3,3>2,"
            "2>1,1>0");
}

TEST_F(Stock, ValuesAreCheckedBeforeAnythingRuns) {
  pick(4, 5);
  for (const auto& [body, code, param] : std::initializer_list<std::tuple<const char*, const char*, const char*>>{
           {R"({"quantity":1})", "parameter_missing", "mode"},
           {R"({"mode":"adjust"})", "parameter_missing", "quantity"},
           {R"({"mode":"add","quantity":1})", "parameter_invalid", "mode"},
           {R"({"mode":"adjust","quantity":0})", "parameter_invalid", "quantity"},
           {R"({"mode":"set","quantity":-1})", "parameter_invalid", "quantity"},
           {R"({"mode":"set","quantity":1.5})", "parameter_invalid", "quantity"},
           {R"({"mode":"set","quantity":"3"})", "parameter_invalid", "quantity"},
           {R"({"mode":"set","quantity":2147483648})", "parameter_invalid", "quantity"},
           {R"({"mode":"set","quantity":1,"note":5})", "parameter_invalid", "note"},
           {R"({"mode":"set","quantity":1,"reason":"x"})", "parameter_unknown", "reason"},
       }) {
    EXPECT_TRUE(is_error(post(body), 400, code, param)) << body;
  }
  const std::string long_note(201, 'n');
  EXPECT_TRUE(is_error(post(R"({"mode":"set","quantity":1,"note":")" + long_note + "\"}"), 400, "parameter_invalid",
                       "note"));
  // 200 characters (here 400 bytes) are fine.
  std::string umlauts;
  for (int i = 0; i < 200; ++i) umlauts += "\xC3\xBC";
  EXPECT_EQ(post(R"({"mode":"set","quantity":1,"note":")" + umlauts + "\"}").status, 200);
  // Adding past the largest stock is refused, and nothing changes.
  EXPECT_TRUE(is_error(post(R"({"mode":"adjust","quantity":2147483647})"), 400, "parameter_invalid", "quantity"));
  EXPECT_EQ(stock(), "1");
  EXPECT_EQ(movements(), movements_before + 1);
}

TEST_F(Stock, DeletedVariantsAndProductsAreNotFound) {
  for (const char* where : {"v.deleted_at is not null and p.deleted_at is null", "p.deleted_at is not null"}) {
    const std::string pair = env->value(
        std::string("select p.id || ' ' || v.id from variants v join products p on p.store_id = v.store_id"
                    " and p.id = v.product_id where v.store_id = $1 and ") + where + " limit 1",
        env->store().id);
    const std::string path = "/v1/products/" + pair.substr(0, 36) + "/variants/" + pair.substr(37) + "/stock";
    EXPECT_TRUE(is_error(env->request("POST", path, R"({"mode":"set","quantity":1})"), 404, "resource_not_found"))
        << where;
    EXPECT_EQ(env->count("select count(*) from stock_movements where variant_id = $1 and source = 'api'",
                         pair.substr(37)),
              0);
  }
}
