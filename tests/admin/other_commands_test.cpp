// storeapi-admin webhook add and stock history.
#include "admin_fixture.hpp"
#include "common/crypto.hpp"

namespace storeapi::testing {
namespace {

using Webhooks = AdminTest;
using StockHistory = AdminTest;

TEST_F(Webhooks, AddPrintsTheSigningSecretOnceAndStoresIt) {
  TestStore store = db().create_store();
  auto json = ok({"webhook", "add", "--store", store.id, "--url", "https://erp.example/hooks/store"});
  EXPECT_EQ(str(json, "object"), "webhook_endpoint");
  EXPECT_EQ(str(json, "url"), "https://erp.example/hooks/store");
  std::string secret = str(json, "secret");
  ASSERT_EQ(secret.rfind("whsec_", 0), 0u) << secret;
  auto bytes = crypto::base64_decode(secret.substr(6));
  ASSERT_TRUE(bytes.has_value()) << secret;
  EXPECT_GE(bytes->size(), 24u);
  EXPECT_EQ(query_value("select secret from webhook_endpoints where id = '" + str(json, "id") + "'"), secret);
  auto other = ok({"webhook", "add", "--store", store.id, "--url", "https://erp.example/other"});
  EXPECT_NE(str(other, "secret"), secret);
}

TEST_F(Webhooks, AddRejectsBadUrlsAndUnknownStores) {
  TestStore store = db().create_store();
  fails({"webhook", "add", "--store", store.id, "--url", "ftp://erp.example/x"}, 2);
  fails({"webhook", "add", "--store", store.id, "--url", "https://"}, 2);
  fails({"webhook", "add", "--store", store.id, "--url", "https://a b.example"}, 2);
  fails({"webhook", "add", "--store", "00000000-0000-4000-8000-000000000000", "--url", "https://erp.example"}, 1);
}

TEST_F(StockHistory, ListsMovementsNewestFirstWithEveryField) {
  TestStore store = db().create_store();
  TestKey key = db().create_key(store.id);
  ok({"seed", "--store", store.id, "--orders", "0", "--products", "4", "--customers", "0", "--bookings", "0"});
  std::string variant = query_value("select variant_id from stock_movements where store_id = '" + store.id + "' limit 1");
  std::string product = query_value("select product_id from variants where id = '" + variant + "'");
  std::string stock = query_value("select stock from variants where id = '" + variant + "'");
  // A later adjust through the API, as the server will record it.
  query_value(
      "insert into stock_movements (store_id, variant_id, product_id, mode, quantity, delta, before, after, note,"
      " source, api_key_id, created_at) values ('" + store.id + "', '" + variant + "', '" + product +
      "', 'adjust', 3, 3, " + stock + ", " + stock + " + 3, 'restock', 'api', '" + key.id +
      "', '2026-11-05T10:00:00.125Z') returning id");

  auto json = ok({"stock", "history", "--store", store.id, "--variant", variant});
  auto data = json["data"].get_array().value();
  ASSERT_EQ(data.size(), 2u);
  auto latest = data.at(0).value();
  EXPECT_EQ(str(latest, "created_at"), "2026-11-05T10:00:00.125Z");
  EXPECT_EQ(str(latest, "mode"), "adjust");
  EXPECT_EQ(num(latest, "quantity"), 3);
  EXPECT_EQ(num(latest, "delta"), 3);
  EXPECT_EQ(num(latest, "before"), std::stoll(stock));
  EXPECT_EQ(num(latest, "after"), std::stoll(stock) + 3);
  EXPECT_EQ(str(latest, "note"), "restock");
  EXPECT_EQ(str(latest, "source"), "api");
  EXPECT_EQ(str(latest, "api_key_id"), key.id);
  auto initial = data.at(1).value();
  EXPECT_EQ(str(initial, "mode"), "set");
  EXPECT_TRUE(initial["before"].is_null());
  EXPECT_EQ(num(initial, "after"), std::stoll(stock));
  EXPECT_TRUE(initial["api_key_id"].is_null());
}

TEST_F(StockHistory, RejectsUnknownVariantsAndStores) {
  TestStore store = db().create_store();
  TestStore other = db().create_store();
  ok({"seed", "--store", other.id, "--orders", "0", "--products", "2", "--customers", "0", "--bookings", "0"});
  std::string foreign = query_value("select id from variants where store_id = '" + other.id + "' limit 1");
  EXPECT_NE(fails({"stock", "history", "--store", store.id, "--variant", foreign}, 1).find("no variant"),
            std::string::npos);
  fails({"stock", "history", "--store", store.id, "--variant", "nope"}, 1);
  fails({"stock", "history", "--store", "00000000-0000-4000-8000-000000000000", "--variant", foreign}, 1);
}

}  // namespace
}  // namespace storeapi::testing
