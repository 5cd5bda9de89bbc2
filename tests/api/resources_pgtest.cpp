// Every record the read endpoints show, lists and single records alike, against the
// database. Their shapes (fields, types, formats, nullability, enums) are checked against
// openapi/storeapi.yaml with every other response the tests receive (tools/test runs
// openapi/validate-exchanges.mjs on the recorded exchanges).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "read_world_test.hpp"

using namespace storeapi::testing;

namespace {

class Resources : public ReadWorldTest {
 protected:
  static void SetUpTestSuite() { start({std::vector<std::string>{"--orders", "120"}}); }
  static void TearDownTestSuite() { stop(); }

  // Walks the list and checks that GET path/{id} shows each record byte for byte as the
  // list does (so both are held to the document); returns the records by id.
  std::map<std::string, std::string> listed_and_by_id(const std::string& path, const std::string& query) {
    Api client = api();
    std::map<std::string, std::string> by_id;
    for (const Api::Record& record : client.walk(path, query)) {
      const Reply one = client.get(path + "/" + record.id);
      EXPECT_EQ(one.status, 200) << one.body;
      EXPECT_EQ(one.body, record.json) << path << "/" << record.id;
      by_id[record.id] = record.json;
    }
    return by_id;
  }

  // The values the records show for `field`.
  static std::set<std::string> values(const std::map<std::string, std::string>& records, const char* field) {
    std::set<std::string> out;
    simdjson::dom::parser parser;
    for (const auto& [id, json] : records) {
      simdjson::dom::element v = parser.parse(simdjson::padded_string(json))[field].value();
      out.insert(v.is_null() ? "null" : std::string(v.get_string().value()));
    }
    return out;
  }
};

}  // namespace

TEST_F(Resources, OrdersConformAndAgreeWithTheDatabase) {
  const auto orders = listed_and_by_id("/v1/orders", "limit=100");
  const auto expected = world().rows(
      "select o.id, o.order_number, o.total::text, o.subtotal::text, count(li.*), sum(li.total)::numeric(10,2)::text,"
      "       o.currency from orders o join order_line_items li on li.store_id = o.store_id and li.order_id = o.id"
      " where o.store_id = '" + store() + "' group by o.store_id, o.id");
  ASSERT_EQ(orders.size(), expected.size());
  simdjson::dom::parser parser;
  for (const auto& row : expected) {
    ASSERT_TRUE(orders.count(row[0])) << row[0];
    const simdjson::dom::element order = parser.parse(simdjson::padded_string(orders.at(row[0])));
    EXPECT_EQ(std::to_string(order["order_number"].get_int64().value()), row[1]);
    EXPECT_EQ(order["total"].get_string().value(), row[2]);
    EXPECT_EQ(order["subtotal"].get_string().value(), row[3]);
    EXPECT_EQ(std::to_string(order["line_items"].get_array().size()), row[4]);
    EXPECT_EQ(row[5], row[3]) << "the seed keeps subtotal = sum of line totals";
    EXPECT_EQ(order["currency"].get_string().value(), row[6]);
  }
  // The seed covers every value, so every value was checked above.
  EXPECT_EQ(values(orders, "status").size(), 9u);
  EXPECT_EQ(values(orders, "fulfillment_status").size(), 9u);
  EXPECT_EQ(values(orders, "channel").size(), 4u);
  EXPECT_EQ(values(orders, "paid_at").count("null"), 1u);
  EXPECT_GT(values(orders, "paid_at").size(), 1u);
}

TEST_F(Resources, LineItemsComeInTheirOrderWithTheirAmounts) {
  const auto expected = world().rows(
      "select li.order_id, string_agg(li.id::text || ' ' || li.quantity || ' ' || li.unit_price || ' ' ||"
      " li.unit_discount || ' ' || li.total, ',' order by li.position) from order_line_items li"
      " where li.store_id = '" + store() + "' group by li.order_id limit 20");
  Api client = api();
  for (const auto& row : expected) {
    const Reply reply = client.get("/v1/orders/" + row[0]);
    ASSERT_EQ(reply.status, 200);
    std::string shown;
    for (simdjson::dom::element li : reply.json()["line_items"].get_array()) {
      if (!shown.empty()) shown += ",";
      shown += std::string(li["id"].get_string().value()) + " " + std::to_string(li["quantity"].get_int64().value()) +
               " " + std::string(li["unit_price"].get_string().value()) + " " +
               std::string(li["unit_discount"].get_string().value()) + " " + std::string(li["total"].get_string().value());
    }
    EXPECT_EQ(shown, row[1]);
  }
}

TEST_F(Resources, ProductsConformWithLiveVariantsOnly) {
  auto products = listed_and_by_id("/v1/products", "limit=100");
  const auto deleted = listed_and_by_id("/v1/products", "limit=100&status=deleted");
  EXPECT_FALSE(deleted.empty()) << "the seed has deleted products";
  for (const auto& [id, json] : deleted) EXPECT_EQ(products.count(id), 0u) << "deleted product listed: " << id;
  products.insert(deleted.begin(), deleted.end());
  EXPECT_EQ(std::to_string(products.size()),
            world().column("select count(*) from products where store_id = '" + store() + "'")[0]);
  EXPECT_EQ(values(products, "type").size(), 4u);
  EXPECT_EQ(values(products, "status").size(), 7u);

  const auto live_variants = world().rows(
      "select v.product_id, string_agg(v.id::text, ',' order by v.position, v.id) from variants v"
      " where v.store_id = '" + store() + "' and v.deleted_at is null group by v.product_id");
  std::map<std::string, std::string> expected;  // product → its live variants
  for (const auto& row : live_variants) expected[row[0]] = row[1];
  EXPECT_NE(world().column("select count(*) from variants where store_id = '" + store() + "' and deleted_at is not null")[0],
            "0") << "the seed has deleted variants";
  simdjson::dom::parser parser;
  std::set<std::string> discount_types, stocks;
  for (const auto& [id, json] : products) {
    const simdjson::dom::element product = parser.parse(simdjson::padded_string(json));
    std::string shown;
    for (simdjson::dom::element v : product["variants"].get_array()) {
      if (!shown.empty()) shown += ",";
      shown += std::string(v["id"].get_string().value());
      EXPECT_EQ(v["product_id"].get_string().value(), id);
      discount_types.insert(v["discount_type"].is_null() ? "null" : std::string(v["discount_type"].get_string().value()));
      stocks.insert(v["stock"].is_null() ? "null" : "tracked");
    }
    EXPECT_EQ(shown, expected.count(id) ? expected.at(id) : "") << id;
    EXPECT_EQ(product["currency"].get_string().value(), "EUR");
    EXPECT_LE(std::stod(std::string(product["min_price"].get_string().value())),
              std::stod(std::string(product["max_price"].get_string().value())));
  }
  EXPECT_EQ(discount_types, (std::set<std::string>{"null", "percentage", "fixed"}));
  EXPECT_EQ(stocks, (std::set<std::string>{"null", "tracked"}));
}

TEST_F(Resources, PriceRangeIsAfterDiscountsOverLiveVariants) {
  // docs/DESIGN.md: a percentage takes that share off (rounded to cents), a fixed discount that amount.
  const std::string after_discount =
      "case v.discount_type when 'percentage' then round(v.price * (100 - v.discount_value) / 100, 2)"
      " when 'fixed' then v.price - v.discount_value else v.price end";
  const auto expected = world().rows(
      "select p.id, min(" + after_discount + ")::numeric(10,2)::text, max(" + after_discount + ")::numeric(10,2)::text"
      "  from products p join variants v on v.store_id = p.store_id and v.product_id = p.id and v.deleted_at is null"
      " where p.store_id = '" + store() + "' group by p.id having bool_or(v.discount_type is not null) limit 10");
  ASSERT_FALSE(expected.empty());
  Api client = api();
  for (const auto& row : expected) {
    const Reply reply = client.get("/v1/products/" + row[0]);
    ASSERT_EQ(reply.status, 200);
    EXPECT_EQ(reply.json()["min_price"].get_string().value(), row[1]);
    EXPECT_EQ(reply.json()["max_price"].get_string().value(), row[2]);
  }
}

TEST_F(Resources, ADeletedProductIsShownByIdWithoutDeletedVariants) {
  const auto deleted = world().column("select id from products where store_id = '" + store() +
                                      "' and deleted_at is not null limit 1");
  ASSERT_EQ(deleted.size(), 1u);
  const Reply reply = api().get("/v1/products/" + deleted[0]);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()["status"].get_string().value(), "deleted");
  const auto dead_variants = world().column("select id from variants where store_id = '" + store() +
                                            "' and deleted_at is not null");
  for (const std::string& id : dead_variants) {
    EXPECT_EQ(api().get("/v1/products/" + deleted[0]).body.find(id), std::string::npos);
  }
}

TEST_F(Resources, BookingsConform) {
  const auto bookings = listed_and_by_id("/v1/bookings", "limit=100");
  EXPECT_EQ(std::to_string(bookings.size()),
            world().column("select count(*) from bookings where store_id = '" + store() + "'")[0]);
  EXPECT_EQ(values(bookings, "status").size(), 4u);
  const auto expected = world().rows("select id, to_char(booking_date, 'YYYY-MM-DD'), to_char(booking_time, 'HH24:MI')"
                                     " from bookings where store_id = '" + store() + "'");
  simdjson::dom::parser parser;
  for (const auto& row : expected) {
    const simdjson::dom::element b = parser.parse(simdjson::padded_string(bookings.at(row[0])));
    EXPECT_EQ(b["date"].get_string().value(), row[1]);
    EXPECT_EQ(b["time"].get_string().value(), row[2]);
  }
}

TEST_F(Resources, CustomersConform) {
  const auto customers = listed_and_by_id("/v1/customers", "limit=100");
  EXPECT_EQ(std::to_string(customers.size()),
            world().column("select count(*) from customers where store_id = '" + store() + "'")[0]);
  EXPECT_EQ(values(customers, "unsubscribed_at").count("null"), 1u);
  EXPECT_GT(values(customers, "unsubscribed_at").size(), 1u);
}

TEST_F(Resources, TimestampsAreTheStoredMilliseconds) {
  const auto row = world().rows("select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
                                " from orders where store_id = '" + store() + "' limit 1")[0];
  const Reply reply = api().get("/v1/orders/" + row[0]);
  EXPECT_EQ(reply.json()["created_at"].get_string().value(), row[1]);
}

TEST_F(Resources, ListEnvelopeConforms) {
  for (const char* path : {"/v1/orders", "/v1/bookings", "/v1/products", "/v1/customers"}) {
    const Reply first = api().get(std::string(path) + "?limit=1");
    ASSERT_EQ(first.status, 200) << first.body;
    EXPECT_TRUE(first.json()["has_more"].get_bool().value()) << path;
    EXPECT_EQ(first.json()["data"].get_array().size(), 1u);
    const Reply all = api().get(std::string(path) + "?limit=100&created_after=2999-01-01T00:00:00Z");
    EXPECT_EQ(all.body, R"({"object":"list","data":[],"has_more":false,"next_cursor":null})") << path;
  }
}

TEST_F(Resources, UnknownMalformedAndForeignIds) {
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  for (const char* path : {"/v1/orders/", "/v1/bookings/", "/v1/products/", "/v1/customers/"}) {
    const Reply missing = api().get(path + unknown);
    EXPECT_EQ(missing.status, 404) << path;
    EXPECT_EQ(missing.error(), "resource_not_found id") << path;
    const Reply malformed = api().get(std::string(path) + "not-a-uuid");
    EXPECT_EQ(malformed.status, 400) << path;
    EXPECT_EQ(malformed.error(), "parameter_invalid id") << path;
  }
}

TEST_F(Resources, SingleRecordsTakeNoQueryParameters) {
  const std::string id = world().column("select id from orders where store_id = '" + store() + "' limit 1")[0];
  const Reply unknown = api().get("/v1/orders/" + id + "?expand=customer&limit=1");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.error(), "parameter_unknown expand");
  const Reply twice = api().get("/v1/orders/" + id + "?a=1&a=2");
  EXPECT_EQ(twice.error(), "parameter_invalid a");
  EXPECT_EQ(api().get("/v1/orders/" + id + "?").status, 200);
  // Validation comes before existence.
  EXPECT_EQ(api().get("/v1/orders/00000000-0000-4000-8000-000000000000?x=1").error(), "parameter_unknown x");
}

TEST_F(Resources, HeadIsGetWithoutABody) {
  const std::string id = world().column("select id from customers where store_id = '" + store() + "' limit 1")[0];
  for (const std::string& target : {std::string("/v1/customers?limit=3"), "/v1/customers/" + id}) {
    const Reply get = api().get(target);
    const Reply head = api().head(target);
    EXPECT_EQ(head.status, 200) << target;
    EXPECT_TRUE(head.body.empty());
    EXPECT_EQ(head.raw.header("Content-Length"), std::to_string(get.body.size())) << target;
  }
}

TEST_F(Resources, ScopesAreChecked) {
  const TestKey orders_only = world().db().create_key(store(), "custom", "orders:read");
  Api client(world().port(), orders_only.key);
  EXPECT_EQ(client.get("/v1/orders?limit=1").status, 200);
  for (const char* path : {"/v1/products", "/v1/bookings", "/v1/customers"}) {
    const Reply reply = client.get(path);
    EXPECT_EQ(reply.status, 403) << path;
    EXPECT_EQ(reply.error(), "insufficient_scope null") << path;
  }
}
