// Isolation: every read is bound to the key's store. Two stores seeded alike (same
// contents, same SKUs and e-mail addresses, other ids); neither key ever sees the other's.
#include <gtest/gtest.h>

#include <set>

#include "read_world_test.hpp"

using namespace storeapi::testing;

namespace {

class Isolation : public ReadWorldTest {
 protected:
  static void SetUpTestSuite() { start({{}, {}}); }
  static void TearDownTestSuite() { stop(); }

  static std::vector<std::string> ids(const std::string& table, std::size_t store) {
    return world().column("select id from " + table + " where store_id = '" + ReadWorldTest::store(store) + "'");
  }
};

struct Resource {
  const char* path;
  const char* table;
};

constexpr Resource kResources[] = {
    {"/v1/orders", "orders"}, {"/v1/bookings", "bookings"}, {"/v1/products", "products"}, {"/v1/customers", "customers"}};

}  // namespace

TEST_F(Isolation, ListsShowOnlyTheKeysStore) {
  for (const Resource& r : kResources) {
    for (std::size_t store : {0u, 1u}) {
      const auto own = ids(r.table, store);
      const std::set<std::string> own_set(own.begin(), own.end());
      const auto other = ids(r.table, 1 - store);
      std::vector<std::string> listed = api(store).walk_ids(r.path, "limit=100");
      for (const std::string& id :
           api(store).walk_ids(r.path, std::string("limit=100&order=asc") +
                                           (std::string(r.table) == "products" ? "&status=deleted" : ""))) {
        listed.push_back(id);
      }
      ASSERT_FALSE(listed.empty()) << r.path;
      for (const std::string& id : listed) EXPECT_TRUE(own_set.count(id)) << r.path << ": " << id << " is not the store's";
      for (const std::string& id : other) EXPECT_EQ(own_set.count(id), 0u);
    }
  }
}

TEST_F(Isolation, AnotherStoresIdIsNotFound) {
  for (const Resource& r : kResources) {
    const auto theirs = ids(r.table, 1);
    ASSERT_FALSE(theirs.empty());
    for (std::size_t i = 0; i < theirs.size(); i += std::max<std::size_t>(1, theirs.size() / 5)) {
      const Reply reply = api(0).get(std::string(r.path) + "/" + theirs[i]);
      EXPECT_EQ(reply.status, 404) << r.path;
      EXPECT_EQ(reply.error(), "resource_not_found id") << r.path;
      EXPECT_EQ(api(1).get(std::string(r.path) + "/" + theirs[i]).status, 200) << r.path;
    }
  }
}

TEST_F(Isolation, SelectiveFiltersStayInTheStore) {
  // The seed gives both stores the same SKUs and e-mail addresses.
  const auto sku = world().rows("select v.sku, v.product_id from variants v join products p on p.store_id = v.store_id"
                                " and p.id = v.product_id where v.store_id = '" + store(0) +
                                "' and v.deleted_at is null and p.deleted_at is null limit 1")[0];
  const auto email = world().rows("select email, id from customers where store_id = '" + store(0) +
                                  "' limit 1")[0];
  EXPECT_EQ(world().column("select count(distinct store_id) from variants where sku = '" + sku[0] + "'")[0], "2");
  EXPECT_EQ(api(0).walk_ids("/v1/products", "sku=" + url_encode(sku[0])), std::vector<std::string>{sku[1]});
  EXPECT_EQ(api(0).walk_ids("/v1/customers", "email=" + url_encode(email[0])), std::vector<std::string>{email[1]});
  const auto theirs = api(1).walk_ids("/v1/customers", "email=" + url_encode(email[0]));
  ASSERT_EQ(theirs.size(), 1u);
  EXPECT_NE(theirs[0], email[1]);
}

TEST_F(Isolation, ACursorWorksOnlyForItsStore) {
  for (const Resource& r : kResources) {
    const Reply first = api(0).get(std::string(r.path) + "?limit=2");
    ASSERT_EQ(first.status, 200);
    const std::string cursor(first.json()["next_cursor"].get_string().value());
    EXPECT_EQ(api(0).get(std::string(r.path) + "?limit=2&cursor=" + cursor).status, 200);
    EXPECT_EQ(api(1).get(std::string(r.path) + "?limit=2&cursor=" + cursor).error(), "invalid_cursor cursor") << r.path;
  }
}
