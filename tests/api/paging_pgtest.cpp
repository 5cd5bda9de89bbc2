// Paging: full walks in both orders and at any page size give the database's sequence;
// cursors are bound to their list; every filter and time bound; invalid parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "read_world_test.hpp"

using namespace storeapi::testing;

namespace {

class Paging : public ReadWorldTest {
 protected:
  static void SetUpTestSuite() {
    start({std::vector<std::string>{"--orders", "150", "--products", "60", "--customers", "40"}});
  }
  static void TearDownTestSuite() { stop(); }

  // The cursor of the first page of `path?query`.
  std::string first_cursor(const std::string& path, const std::string& query) {
    const Reply reply = api().get(path + "?" + query);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return std::string(reply.json()["next_cursor"].get_string().value());
  }
};

struct ListCase {
  const char* path;
  const char* table;
  const char* listed;  // which rows the list shows without filters
};

constexpr ListCase kLists[] = {
    {"/v1/orders", "orders", "true"},
    {"/v1/bookings", "bookings", "true"},
    {"/v1/products", "products", "status <> 'deleted'"},
    {"/v1/customers", "customers", "true"},
};

}  // namespace

TEST_F(Paging, WalksGiveTheSameSequenceAtAnyPageSizeInBothOrders) {
  for (const ListCase& list : kLists) {
    for (const bool ascending : {false, true}) {
      const std::string order = ascending ? "order=asc" : "order=desc";
      const auto want = expected(list.table, list.listed, ascending);
      ASSERT_GT(want.size(), 7u) << list.path;
      std::size_t pages = 0;
      std::vector<std::string> by7;
      for (auto& r : api().walk(list.path, "limit=7&" + order, &pages)) by7.push_back(r.id);
      EXPECT_EQ(by7, want) << list.path << " " << order;
      EXPECT_EQ(pages, (want.size() + 6) / 7) << list.path;
      EXPECT_EQ(api().walk_ids(list.path, "limit=100&" + order), want) << list.path << " " << order;
      EXPECT_EQ(api().walk_ids(list.path, ascending ? order : ""), want) << list.path << " default limit";
    }
  }
}

TEST_F(Paging, LimitMayChangeBetweenPages) {
  const auto want = expected("orders", "true", false);
  std::vector<std::string> seen;
  std::string cursor;
  for (int limit = 1; seen.size() < want.size(); limit = limit % 100 + 13) {
    const Reply page = api().get("/v1/orders?limit=" + std::to_string(limit) + (cursor.empty() ? "" : "&cursor=" + cursor));
    ASSERT_EQ(page.status, 200) << page.body;
    for (auto record : page.json()["data"].get_array()) seen.emplace_back(record["id"].get_string().value());
    if (!page.json()["has_more"].get_bool().value()) break;
    cursor = std::string(page.json()["next_cursor"].get_string().value());
  }
  EXPECT_EQ(seen, want);
}

TEST_F(Paging, TiesInCreatedAtAreOrderedById) {
  // Twelve customers created in the same millisecond; pages of one must still see each once.
  world().rows("insert into customers (store_id, name, email, phone, source, email_status, created_at, updated_at)"
               " select '" + store() + "', 'Tie ' || n, 'tie' || n || '@example.com', '+1', 'api', 'subscribed',"
               " '2025-06-01T12:00:00.123Z', '2025-06-01T12:00:00.123Z' from generate_series(1, 12) n");
  for (const bool ascending : {false, true}) {
    const auto want = expected("customers", "created_at = '2025-06-01T12:00:00.123Z'", ascending);
    ASSERT_EQ(want.size(), 12u);
    const std::string bounds = "created_after=2025-06-01T12:00:00.122Z&created_before=2025-06-01T12:00:00.124Z";
    EXPECT_EQ(api().walk_ids("/v1/customers", "limit=1&" + bounds + (ascending ? "&order=asc" : "")), want);
    EXPECT_EQ(api().walk_ids("/v1/customers", "limit=5&" + bounds + (ascending ? "&order=asc" : "")), want);
  }
}

TEST_F(Paging, RecordsArrivingDuringPagingNeitherShiftNorRepeat) {
  for (const bool ascending : {false, true}) {
    const std::string query = std::string("limit=5") + (ascending ? "&order=asc" : "");
    const auto before = expected("customers", "true", ascending);
    Api client = api();
    const Reply first = client.get("/v1/customers?" + query);
    ASSERT_EQ(first.status, 200);
    std::vector<std::string> seen;
    for (auto record : first.json()["data"].get_array()) seen.emplace_back(record["id"].get_string().value());
    std::string cursor(first.json()["next_cursor"].get_string().value());
    // New customers (created now, after every seeded one) arrive between the pages.
    world().rows("insert into customers (store_id, name, email, phone, source, email_status) select '" + store() +
                 "', 'New ' || n, 'new' || n || '@example.com', '+1', 'api', 'subscribed' from generate_series(1, 7) n");
    for (;;) {
      const Reply page = client.get("/v1/customers?" + query + "&cursor=" + cursor);
      ASSERT_EQ(page.status, 200) << page.body;
      for (auto record : page.json()["data"].get_array()) seen.emplace_back(record["id"].get_string().value());
      if (!page.json()["has_more"].get_bool().value()) break;
      cursor = std::string(page.json()["next_cursor"].get_string().value());
    }
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size()) << "a record repeated";
    if (ascending) {
      // The old records in their order, then the new ones at the end.
      ASSERT_GE(seen.size(), before.size());
      EXPECT_TRUE(std::equal(before.begin(), before.end(), seen.begin()));
      const auto after = expected("customers", "true", true);
      EXPECT_EQ(std::vector<std::string>(seen.begin() + static_cast<long>(before.size()), seen.end()),
                std::vector<std::string>(after.end() - 7, after.end()));
    } else {
      EXPECT_EQ(seen, before) << "newest first: the new records are before the first page, never inside";
    }
  }
}

TEST_F(Paging, TamperedOverlongAndForeignCursorsAreRefused) {
  const std::string cursor = first_cursor("/v1/orders", "limit=3&status=captured");
  ASSERT_EQ(api().get("/v1/orders?limit=3&status=captured&cursor=" + cursor).status, 200);
  const auto refused = [this](const std::string& target) {
    const Reply reply = api().get(target);
    EXPECT_EQ(reply.status, 400) << target;
    EXPECT_EQ(reply.error(), "invalid_cursor cursor") << target;
  };
  for (std::size_t i = 0; i < cursor.size(); i += 5) {
    std::string tampered = cursor;
    tampered[i] = tampered[i] == 'x' ? 'y' : 'x';
    refused("/v1/orders?limit=3&status=captured&cursor=" + tampered);
  }
  refused("/v1/orders?limit=3&status=captured&cursor=" + cursor.substr(0, cursor.size() - 1));
  refused("/v1/orders?limit=3&status=captured&cursor=" + cursor + "AAAA");
  refused("/v1/orders?limit=3&status=captured&cursor=" + std::string(501, 'A'));
  refused("/v1/orders?limit=3&status=captured&cursor=" + std::string(500, 'A'));
  refused("/v1/orders?limit=3&status=captured&cursor=");
  // Keep all other parameters unchanged while paging.
  refused("/v1/orders?limit=3&cursor=" + cursor);
  refused("/v1/orders?limit=3&status=completed&cursor=" + cursor);
  refused("/v1/orders?limit=3&status=captured&order=asc&cursor=" + cursor);
  refused("/v1/orders?limit=3&status=captured&channel=storefront&cursor=" + cursor);
  refused("/v1/orders?limit=3&status=captured&created_before=2030-01-01T00:00:00Z&cursor=" + cursor);
  refused("/v1/orders?limit=3&status=captured&updated_after=2000-01-01T00:00:00Z&cursor=" + cursor);
  // Another list with the same parameters.
  refused("/v1/bookings?limit=3&status=canceled&cursor=" + first_cursor("/v1/orders", "limit=3&status=canceled"));
  refused("/v1/customers?cursor=" + first_cursor("/v1/products", "limit=3"));
}

TEST_F(Paging, OrderFilters) {
  for (const char* column : {"status", "fulfillment_status", "channel"}) {
    const auto values = world().column("select distinct " + std::string(column) + " from orders where store_id = '" +
                                       store() + "'");
    ASSERT_GE(values.size(), 4u) << column;
    for (const std::string& value : values) {
      const std::string query = std::string(column) + "=" + value + "&limit=9";
      EXPECT_EQ(api().walk_ids("/v1/orders", query),
                expected("orders", std::string(column) + " = '" + value + "'", false)) << query;
    }
    const Reply bad = api().get("/v1/orders?" + std::string(column) + "=bogus");
    EXPECT_EQ(bad.error(), "parameter_invalid " + std::string(column));
  }
  EXPECT_EQ(api().walk_ids("/v1/orders", "status=completed&channel=storefront&fulfillment_status=fulfilled&order=asc"),
            expected("orders", "status = 'completed' and channel = 'storefront' and fulfillment_status = 'fulfilled'",
                     true));
}

TEST_F(Paging, BookingFilter) {
  for (const char* status : {"pending", "accepted", "canceled", "initiated"}) {
    EXPECT_EQ(api().walk_ids("/v1/bookings", std::string("limit=3&status=") + status),
              expected("bookings", std::string("status = '") + status + "'", false)) << status;
  }
  EXPECT_EQ(api().get("/v1/bookings?status=done").error(), "parameter_invalid status");
  EXPECT_EQ(api().get("/v1/bookings?updated_after=2026-01-01T00:00:00Z").error(), "parameter_unknown updated_after");
  EXPECT_EQ(api().get("/v1/bookings?updated_before=2026-01-01T00:00:00Z").error(), "parameter_unknown updated_before");
  EXPECT_EQ(api().get("/v1/bookings?channel=storefront").error(), "parameter_unknown channel");
}

TEST_F(Paging, ProductFilters) {
  for (const char* status : {"pending", "approved", "deleted", "archived", "featured", "in_review", "draft"}) {
    EXPECT_EQ(api().walk_ids("/v1/products", std::string("limit=4&status=") + status),
              expected("products", std::string("status = '") + status + "'", false)) << status;
  }
  for (const char* type : {"physical", "digital", "consulting", "webinar"}) {
    EXPECT_EQ(api().walk_ids("/v1/products", std::string("limit=4&type=") + type),
              expected("products", std::string("type = '") + type + "' and status <> 'deleted'", false)) << type;
  }
  // sku: exact, any live variant; a deleted variant's sku matches nothing; a deleted
  // product only with status=deleted.
  const auto live = world().rows("select v.sku, v.product_id from variants v join products p on p.store_id = v.store_id"
                                 " and p.id = v.product_id where v.store_id = '" + store() +
                                 "' and v.deleted_at is null and p.deleted_at is null limit 5");
  ASSERT_FALSE(live.empty());
  for (const auto& row : live) {
    EXPECT_EQ(api().walk_ids("/v1/products", "sku=" + url_encode(row[0])), std::vector<std::string>{row[1]}) << row[0];
    EXPECT_TRUE(api().walk_ids("/v1/products", "sku=" + url_encode(row[0]) + "x").empty());
    EXPECT_TRUE(api().walk_ids("/v1/products", "sku=" + url_encode(row[0]) + "&status=deleted").empty());
  }
  const auto dead = world().column("select sku from variants v where store_id = '" + store() + "' and deleted_at is not null"
                                   " and not exists (select 1 from variants w where w.store_id = v.store_id and"
                                   " w.sku = v.sku and w.deleted_at is null)");
  ASSERT_FALSE(dead.empty());
  EXPECT_TRUE(api().walk_ids("/v1/products", "sku=" + url_encode(dead[0])).empty());
  const auto on_deleted = world().rows("select v.sku, p.id from variants v join products p on p.store_id = v.store_id"
                                       " and p.id = v.product_id where v.store_id = '" + store() +
                                       "' and v.deleted_at is null and p.deleted_at is not null limit 1");
  if (!on_deleted.empty()) {
    EXPECT_TRUE(api().walk_ids("/v1/products", "sku=" + url_encode(on_deleted[0][0])).empty());
    EXPECT_EQ(api().walk_ids("/v1/products", "status=deleted&sku=" + url_encode(on_deleted[0][0])),
              std::vector<std::string>{on_deleted[0][1]});
  }
  EXPECT_EQ(api().get("/v1/products?sku=" + std::string(101, 'x')).error(), "parameter_invalid sku");
  EXPECT_EQ(api().get("/v1/products?sku=" + std::string(100, 'x')).status, 200);
  EXPECT_EQ(api().get("/v1/products?type=service").error(), "parameter_invalid type");
}

TEST_F(Paging, CustomerEmailFilterIsExactButCaseInsensitive) {
  const auto row = world().rows("select email, id from customers where store_id = '" + store() + "' limit 1")[0];
  std::string shouted = row[0];
  std::transform(shouted.begin(), shouted.end(), shouted.begin(), ::toupper);
  for (const std::string& email : {row[0], shouted}) {
    EXPECT_EQ(api().walk_ids("/v1/customers", "email=" + url_encode(email)), std::vector<std::string>{row[1]});
  }
  EXPECT_TRUE(api().walk_ids("/v1/customers", "email=x" + url_encode(row[0])).empty());
  EXPECT_EQ(api().get("/v1/customers?email=not-an-email").error(), "parameter_invalid email");
  EXPECT_EQ(api().get("/v1/customers?email=").error(), "parameter_invalid email");
}

TEST_F(Paging, TimeBoundsAreStrict) {
  const auto row = world().rows(
      "select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
      " to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
      " to_char((created_at - interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
      " to_char((created_at + interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
      " to_char((created_at - interval '20 days') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
      " from orders where store_id = '" + store() + "' order by created_at offset 70 limit 1")[0];
  const std::string& id = row[0];
  const auto contains = [&](const std::string& query) {
    const auto ids = api().walk_ids("/v1/orders", "limit=100&" + query);
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  EXPECT_FALSE(contains("created_after=" + row[1]));
  EXPECT_FALSE(contains("created_before=" + row[1]));
  EXPECT_TRUE(contains("created_after=" + row[3]));
  EXPECT_TRUE(contains("created_before=" + row[4]));
  EXPECT_TRUE(contains("created_after=" + row[3] + "&created_before=" + row[4]));
  EXPECT_FALSE(contains("updated_after=" + row[2]));
  EXPECT_FALSE(contains("updated_before=" + row[2]));
  // The bounds select exactly the database's rows, in both orders.
  const std::string window = "created_at > '" + row[5] + "' and created_at < '" + row[4] + "'";
  const std::string query = "created_after=" + row[5] + "&created_before=" + row[4];
  EXPECT_EQ(api().walk_ids("/v1/orders", "limit=6&" + query), expected("orders", window, false));
  EXPECT_EQ(api().walk_ids("/v1/orders", "limit=6&order=asc&" + query), expected("orders", window, true));
}

TEST_F(Paging, OffsetsAndFractionsNameTheSameInstant) {
  const auto utc = api().walk_ids("/v1/orders", "limit=100&created_after=2026-01-01T00:00:00Z");
  EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&created_after=2026-01-01T02:00:00%2B02:00"), utc);
  EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&created_after=2026-01-01T02:00:00+02:00"), utc);  // '+' is a plus
  EXPECT_EQ(api().walk_ids("/v1/orders", "limit=100&created_after=2025-12-31T19:00:00.000000-05:00"), utc);
}

TEST_F(Paging, InvalidAndUnknownParameters) {
  const auto error = [this](const std::string& target) { return api().get(target).error(); };
  for (const char* path : {"/v1/orders", "/v1/bookings", "/v1/products", "/v1/customers"}) {
    const std::string p(path);
    EXPECT_EQ(error(p + "?limit=0"), "parameter_invalid limit");
    EXPECT_EQ(error(p + "?limit=101"), "parameter_invalid limit");
    EXPECT_EQ(error(p + "?limit="), "parameter_invalid limit");
    EXPECT_EQ(error(p + "?limit=abc"), "parameter_invalid limit");
    EXPECT_EQ(error(p + "?order=newest"), "parameter_invalid order");
    EXPECT_EQ(error(p + "?created_after=yesterday"), "parameter_invalid created_after");
    EXPECT_EQ(error(p + "?created_before=2026-01-01"), "parameter_invalid created_before");
    EXPECT_EQ(error(p + "?page=2"), "parameter_unknown page");
    EXPECT_EQ(error(p + "?limit=0&page=2"), "parameter_unknown page");  // unknown names first
    EXPECT_EQ(error(p + "?order=x&limit=0"), "parameter_invalid order");  // then left to right
    EXPECT_EQ(error(p + "?limit=1&limit=2"), "parameter_invalid limit");
  }
  EXPECT_EQ(error("/v1/orders?updated_after=soon"), "parameter_invalid updated_after");
  EXPECT_EQ(error("/v1/products?email=a@b.c"), "parameter_unknown email");
  EXPECT_EQ(error("/v1/customers?sku=x"), "parameter_unknown sku");
}
