// storeapi-admin seed: coverage at the small sizes, consistent totals, determinism.
#include "admin_fixture.hpp"

namespace storeapi::testing {
namespace {

// Values each column must hold at least once after a default seed.
struct Coverage {
  const char* table;
  const char* column;
  std::vector<std::string> values;
};

const std::vector<Coverage> kCoverage = {
    {"orders", "status", {"pending", "pending_payment", "captured", "completed", "canceled", "failed", "confirmed", "refunded", "draft"}},
    {"orders", "fulfillment_status", {"pending", "confirmed", "processing", "ready", "shipped", "delivered", "canceled", "returned", "fulfilled"}},
    {"orders", "channel", {"storefront", "marketplace", "platform", "dashboard"}},
    {"bookings", "status", {"pending", "accepted", "canceled", "initiated"}},
    {"products", "status", {"pending", "approved", "deleted", "archived", "featured", "in_review", "draft"}},
    {"products", "type", {"physical", "digital", "consulting", "webinar"}},
    {"variants", "coalesce(discount_type, 'none')", {"none", "percentage", "fixed"}},
    {"variants", "case when stock is null then 'untracked' else 'tracked' end", {"tracked", "untracked"}},
    {"variants", "case when deleted_at is null then 'live' else 'deleted' end", {"live", "deleted"}},
    {"variants", "case when barcode is null then 'none' else 'barcode' end", {"none", "barcode"}},
    {"customers", "case when unsubscribed_at is null then 'subscribed' else 'unsubscribed' end", {"subscribed", "unsubscribed"}},
    {"customers", "email_status", {"subscribed", "unsubscribed", "bounced", "pending"}},
    {"customers", "source", {"storefront", "import", "dashboard", "api"}},
    {"orders", "case when paid_at is null then 'unpaid' else 'paid' end", {"paid", "unpaid"}},
    {"orders", "case when tracking_number is null then 'none' else 'tracked' end", {"none", "tracked"}},
    {"orders", "case when billing_address->'line2' = 'null' then 'none' else 'line2' end", {"none", "line2"}},
    {"orders", "payment_method", {"card", "paypal", "bank_transfer", "cash_on_delivery"}},
};

class Seed : public AdminTest {
 protected:
  // Seeds `store` at the default sizes; returns its id.
  std::string seed_default(const TestStore& store) {
    auto json = ok({"seed", "--store", store.id});
    EXPECT_EQ(num(json, "orders"), 60);
    EXPECT_EQ(num(json, "products"), 40);
    EXPECT_EQ(num(json, "customers"), 20);
    EXPECT_EQ(num(json, "bookings"), 20);
    return store.id;
  }
};

TEST_F(Seed, DefaultSizesCoverEveryValue) {
  TestStore store = db().create_store();
  std::string id = seed_default(store);
  for (const auto& c : kCoverage) {
    for (const auto& value : c.values) {
      EXPECT_NE(query_value(std::string("select count(*) from ") + c.table + " where store_id = '" + id + "' and " +
                            c.column + " = '" + value + "'"),
                "0")
          << c.table << "." << c.column << " never is " << value;
    }
  }
  EXPECT_EQ(query_value("select count(*) from products p where store_id = '" + id +
                        "' and (select count(distinct locale) from product_translations t"
                        "  where t.store_id = p.store_id and t.product_id = p.id) <> 2"),
            "0")
      << "every product has translations in two locales";
  EXPECT_EQ(query_value("select count(*) from products where store_id = '" + id +
                        "' and cardinality(tags) > 0 and cardinality(images) > 0"),
            query_value("select count(*) filter (where cardinality(tags) > 0) from products where store_id = '" + id + "'"));
}

// The read endpoints return the stored documents: after a seed every record's is there
// and byte for byte what the renderer makes of the record (the seed writes line items,
// translations and variants after their rows, then renders again).
TEST_F(Seed, StoresEveryRecordsDocumentAsTheRendererRendersIt) {
  TestStore store = db().create_store();
  std::string id = seed_default(store);
  for (const auto& [table, renderer] : std::vector<std::pair<std::string, std::string>>{
           {"orders", "api.order_json(t)"}, {"products", "api.product_json(t)"},
           {"customers", "api.customer_json(t)"}, {"bookings", "api.booking_json(t)"}}) {
    EXPECT_EQ(query_value("select count(*) from " + table + " t where store_id = '" + id + "' and (doc is null or doc <> " +
                          renderer + ")"),
              "0")
        << table;
    EXPECT_NE(query_value("select count(*) from " + table + " where store_id = '" + id + "'"), "0") << table;
  }
  EXPECT_EQ(query_value("select count(*) from api.stale_documents"), "0");
  // The documents that show other tables show them.
  EXPECT_EQ(query_value("select count(*) from orders where store_id = '" + id + "' and doc like '%\"line_items\":[]%'"), "0");
  EXPECT_EQ(query_value("select count(*) from products where store_id = '" + id + "' and doc like '%\"translations\":[]%'"), "0");
}

TEST_F(Seed, PrintedCountsMatchTheRows) {
  TestStore store = db().create_store();
  auto json = ok({"seed", "--store", store.id, "--orders", "7", "--products", "5", "--customers", "3", "--bookings", "2"});
  for (const char* table : {"orders", "products", "customers", "bookings", "variants", "categories", "stock_movements"})
    EXPECT_EQ(query_value(std::string("select count(*) from ") + table + " where store_id = '" + store.id + "'"),
              std::to_string(num(json, table)))
        << table;
  EXPECT_EQ(query_value("select count(*) from order_line_items where store_id = '" + store.id + "'"),
            std::to_string(num(json, "line_items")));
}

TEST_F(Seed, TotalsAndReferencesAreConsistent) {
  TestStore store = db().create_store();
  std::string id = seed_default(store);
  std::string in_store = " where o.store_id = '" + id + "'";
  EXPECT_EQ(query_value("select count(*) from orders o" + in_store +
                        " and subtotal <> (select sum(total) from order_line_items li"
                        "  where li.store_id = o.store_id and li.order_id = o.id)"),
            "0");
  EXPECT_EQ(query_value("select count(*) from orders o" + in_store +
                        " and not exists (select 1 from order_line_items li where li.store_id = o.store_id and li.order_id = o.id)"),
            "0");
  EXPECT_EQ(query_value("select count(*) from order_line_items o" + in_store +
                        " and total <> quantity * (unit_price - unit_discount)"),
            "0");
  EXPECT_EQ(query_value("select count(*) from orders o" + in_store + " and total <> subtotal + shipping_total + tax_total"),
            "0");
  EXPECT_EQ(query_value("select count(*) from orders o" + in_store + " and currency <> 'EUR'"), "0");
  // Line items carry the variant's price and discount at seeding time.
  EXPECT_EQ(query_value("select count(*) from order_line_items o join variants v on v.store_id = o.store_id"
                        " and v.id = o.variant_id" + in_store + " and (o.unit_price <> v.price or o.unit_discount <>"
                        " case v.discount_type when 'fixed' then v.discount_value"
                        " when 'percentage' then round(v.price * v.discount_value / 100, 2) else 0 end)"),
            "0");
  // Timestamps: two years before 2026-11-01, updated_at never before created_at.
  for (const char* table : {"orders", "products", "variants", "customers", "bookings"}) {
    EXPECT_EQ(query_value(std::string("select count(*) from ") + table + " o" + in_store +
                          " and (created_at < '2024-11-01T00:00:00Z' or updated_at > '2026-11-01T00:00:00Z'"
                          " or updated_at < created_at)"),
              "0")
        << table;
  }
  // Customers exist before their orders; snapshots match the customer.
  EXPECT_EQ(query_value("select count(*) from orders o join customers c on c.store_id = o.store_id and c.id = o.customer_id" +
                        in_store + " and (c.created_at > o.created_at or c.email <> o.customer_email or c.name <> o.customer_name)"),
            "0");
  // Every booking is for a consulting product bought in its order.
  EXPECT_EQ(query_value("select count(*) from bookings o join products p on p.store_id = o.store_id and p.id = o.product_id" +
                        in_store + " and (p.type <> 'consulting' or not exists (select 1 from order_line_items li"
                        " where li.store_id = o.store_id and li.order_id = o.order_id and li.product_id = o.product_id))"),
            "0");
  EXPECT_EQ(query_value("select count(*) from customers o" + in_store +
                        " and (email_status = 'unsubscribed') <> (unsubscribed_at is not null)"),
            "0");
  EXPECT_EQ(query_value("select count(*) from orders o" + in_store +
                        " and (paid_at is not null) <> (status in ('captured', 'completed', 'confirmed', 'refunded'))"),
            "0");
}

// Content digest of the seeded tables of one store, ids included or not.
std::string content_digest(TestDatabase& db, const std::string& store_id, bool with_ids) {
  auto conn = db.connect();
  pqxx::work work(*conn);
  std::string digest;
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"orders", "order_number, status, fulfillment_status, channel, subtotal, shipping_total, tax_total, total,"
                 " payment_method, payment_gateway, paid_at, tracking_number, tracking_carrier, customer_name,"
                 " customer_email, billing_address, shipping_address, created_at, updated_at"},
      {"products", "name, slug, type, status, tags, images, deleted_at, created_at, updated_at"},
      {"variants", "title, sku, barcode, price, discount_type, discount_value, stock, option1, option2, position, deleted_at"},
      {"customers", "name, email, phone, source, email_status, unsubscribed_at, tags, created_at"},
      {"bookings", "status, booking_date, booking_time, timezone, duration_minutes, meeting_method, meeting_link,"
                   " product_name, customer_email, created_at"},
      {"order_line_items", "position, product_name, variant_title, quantity, unit_price, unit_discount, total"},
      {"product_translations", "locale, name, description"},
  };
  for (const auto& [table, columns] : tables) {
    std::string cols = with_ids ? "t.*" : "(" + columns + ")";
    digest += table + ":" +
              work.exec1("select md5(string_agg(row_text, '|' order by row_text)) from (select " + cols +
                         "::text as row_text from " + table + " t where store_id = '" + store_id + "') r")[0]
                  .c_str() +
              "\n";
  }
  return digest;
}

TEST_F(Seed, IsDeterministic) {
  // The same store id in two databases gets identical rows, ids included.
  const std::string fixed_id = "5eed5eed-0000-4000-8000-000000000001";
  TestDatabase other;
  for (TestDatabase* target : {&db(), &other}) {
    auto conn = target->connect();
    pqxx::work work(*conn);
    work.exec("insert into stores (id, name, slug, url, currency, locale, plan, owner_email) values ('" + fixed_id +
              "', 'Fixed', 'fixed-seed', 'https://fixed.example', 'EUR', 'en', 'advanced', 'o@fixed.example')");
    work.commit();
    CliResult r = run_admin({"seed", "--store", fixed_id, "--orders", "80", "--bookings", "25"}, target->url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(content_digest(db(), fixed_id, true), content_digest(other, fixed_id, true));

  // Another store gets the same content under different ids.
  TestStore second = db().create_store();
  ok({"seed", "--store", second.id, "--orders", "80", "--bookings", "25"});
  EXPECT_EQ(content_digest(db(), fixed_id, false), content_digest(db(), second.id, false));
  EXPECT_EQ(query_value("select count(*) from orders a join orders b on a.id = b.id where a.store_id = '" + fixed_id +
                        "' and b.store_id = '" + second.id + "'"),
            "0");
}

TEST_F(Seed, RefusesAStoreThatHasData) {
  TestStore store = db().create_store();
  ok({"seed", "--store", store.id, "--orders", "3", "--products", "3", "--customers", "2", "--bookings", "1"});
  EXPECT_NE(fails({"seed", "--store", store.id}, 1).find("already has data"), std::string::npos);
}

TEST_F(Seed, RejectsSizesItCannotHonour) {
  TestStore store = db().create_store();
  EXPECT_NE(fails({"seed", "--store", store.id, "--orders", "0", "--bookings", "3"}, 1).find("orders"), std::string::npos);
  EXPECT_NE(fails({"seed", "--store", store.id, "--customers", "0"}, 1).find("customers"), std::string::npos);
  EXPECT_NE(fails({"seed", "--store", store.id, "--products", "2", "--bookings", "1"}, 1).find("consulting"),
            std::string::npos);
  fails({"seed", "--store", store.id, "--orders", "many"}, 2);
  fails({"seed", "--store", store.id, "--orders", "-1"}, 2);
  fails({"seed", "--store", "00000000-0000-4000-8000-000000000000"}, 1);
}

}  // namespace
}  // namespace storeapi::testing
