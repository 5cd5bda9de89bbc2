// The seed generator in memory: determinism, id derivation, consistent totals.
#include "admin/base/errors.hpp"
#include "admin/seed/generator.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace storeapi::admin;
using namespace storeapi::admin::seed;

namespace {

const std::string kStoreA = "11111111-1111-4111-8111-111111111111";
const std::string kStoreB = "22222222-2222-4222-8222-222222222222";

std::vector<std::string> order_ids(const SeedData& d) {
  std::vector<std::string> ids;
  for (const auto& o : d.orders) ids.push_back(o.id);
  return ids;
}

}  // namespace

TEST(SeedGenerator, SameInputsGiveSameRows) {
  SeedData a = generate(kStoreA, "en", {});
  SeedData b = generate(kStoreA, "en", {});
  EXPECT_EQ(order_ids(a), order_ids(b));
  ASSERT_EQ(a.line_items.size(), b.line_items.size());
  for (std::size_t i = 0; i < a.orders.size(); ++i) {
    EXPECT_EQ(a.orders[i].total, b.orders[i].total);
    EXPECT_EQ(a.orders[i].billing_address, b.orders[i].billing_address);
  }
}

TEST(SeedGenerator, OtherStoresGetTheSameContentUnderOtherIds) {
  SeedData a = generate(kStoreA, "en", {});
  SeedData b = generate(kStoreB, "en", {});
  std::vector<std::string> list_a = order_ids(a);
  std::set<std::string> ids_a(list_a.begin(), list_a.end());
  for (const auto& o : b.orders) {
    EXPECT_FALSE(ids_a.contains(o.id));
  }
  ASSERT_EQ(a.orders.size(), b.orders.size());
  for (std::size_t i = 0; i < a.orders.size(); ++i) {
    EXPECT_EQ(a.orders[i].status, b.orders[i].status);
    EXPECT_EQ(a.orders[i].total, b.orders[i].total);
  }
}

TEST(SeedGenerator, IdsAreUniqueUuids) {
  SeedData d = generate(kStoreA, "en", {.orders = 500, .products = 50, .customers = 100, .bookings = 40});
  std::set<std::string> ids;
  std::size_t count = 0;
  auto add = [&](const std::string& id) {
    ++count;
    ids.insert(id);
    EXPECT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4');
  };
  for (const auto& x : d.orders) add(x.id);
  for (const auto& x : d.products) add(x.id);
  for (const auto& x : d.variants) add(x.id);
  for (const auto& x : d.customers) add(x.id);
  for (const auto& x : d.line_items) add(x.id);
  for (const auto& x : d.bookings) add(x.id);
  EXPECT_EQ(ids.size(), count);
}

TEST(SeedGenerator, TotalsAddUp) {
  SeedData d = generate(kStoreA, "de", {.orders = 300, .products = 30, .customers = 50, .bookings = 30});
  std::vector<Cents> subtotal(d.orders.size(), 0);
  for (const auto& li : d.line_items) {
    EXPECT_EQ(li.total, li.quantity * (li.unit_price - li.unit_discount));
    EXPECT_GT(li.unit_price, li.unit_discount);
    subtotal[li.order] += li.total;
  }
  for (std::size_t i = 0; i < d.orders.size(); ++i) {
    const auto& o = d.orders[i];
    EXPECT_EQ(o.subtotal, subtotal[i]);
    EXPECT_EQ(o.total, o.subtotal + o.shipping_total + o.tax_total);
    EXPECT_EQ(o.order_number, 1001 + static_cast<long>(i));
    EXPECT_GE(o.updated_at, o.created_at);
    EXPECT_LE(o.updated_at, kReferenceTime);
    if (i > 0) {
      EXPECT_GE(o.created_at, d.orders[i - 1].created_at);
    }
  }
}

TEST(SeedGenerator, NamesFollowTheStoreLocale) {
  SeedData de = generate(kStoreA, "de", {.orders = 0, .products = 5, .customers = 0, .bookings = 0});
  for (const auto& p : de.products) {
    ASSERT_EQ(p.translations.size(), 2u);
    EXPECT_EQ(p.translations[0].locale, "de");
    EXPECT_EQ(p.translations[0].name, p.name);
    EXPECT_EQ(p.translations[1].locale, "en");
  }
}

TEST(SeedGenerator, RefusesSizesItCannotHonour) {
  EXPECT_THROW(generate(kStoreA, "en", {.orders = 0, .products = 40, .customers = 20, .bookings = 1}), CommandError);
  EXPECT_THROW(generate(kStoreA, "en", {.orders = 5, .products = 40, .customers = 0, .bookings = 0}), CommandError);
  EXPECT_THROW(generate(kStoreA, "en", {.orders = 5, .products = 0, .customers = 5, .bookings = 0}), CommandError);
  EXPECT_NO_THROW(generate(kStoreA, "en", {.orders = 0, .products = 0, .customers = 0, .bookings = 0}));
}
