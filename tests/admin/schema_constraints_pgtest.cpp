// The schema's own guards: what the database refuses whatever the writer.
#include "admin_fixture.hpp"

namespace storeapi::testing {
namespace {

constexpr const char* kCheckViolation = "23514";
constexpr const char* kUniqueViolation = "23505";

class Schema : public AdminTest {
 protected:
  void SetUp() override {
    store_ = db().create_store();
    product_ = query_value("insert into products (store_id, name, slug, type, status) values ('" + store_.id +
                           "', 'Mug', 'mug', 'physical', 'approved') returning id");
    customer_ = query_value("insert into customers (store_id, name, email, phone, source, email_status) values ('" +
                            store_.id + "', 'Ann', 'ann@example.com', '+49 30 1', 'storefront', 'subscribed') returning id");
  }

  // Runs `sql` and expects PostgreSQL to refuse it with `sqlstate`.
  void expect_refused(const std::string& sql, const char* sqlstate) {
    auto conn = db().connect();
    pqxx::work work(*conn);
    try {
      work.exec(sql);
      ADD_FAILURE() << "accepted: " << sql;
    } catch (const pqxx::sql_error& e) {
      EXPECT_EQ(e.sqlstate(), sqlstate) << e.what();
    }
  }

  void expect_accepted(const std::string& sql) {
    auto conn = db().connect();
    pqxx::work work(*conn);
    EXPECT_NO_THROW(work.exec(sql)) << sql;
  }

  std::string variant(const std::string& columns, const std::string& values) {
    return "insert into variants (store_id, product_id, title, sku, price, position" + columns + ") values ('" +
           store_.id + "', '" + product_ + "', 'Default', 'MUG-1', 12.00, 0" + values + ")";
  }

  std::string order(const std::string& totals, const std::string& billing = kAddress,
                    const std::string& status = "completed", const std::string& channel = "storefront") {
    return "insert into orders (store_id, order_number, status, fulfillment_status, channel, currency, subtotal,"
           " shipping_total, tax_total, total, payment_method, payment_gateway, customer_id, customer_name,"
           " customer_email, customer_phone, billing_address, shipping_address) values ('" + store_.id +
           "', 1001, '" + status + "', 'pending', '" + channel + "', 'EUR', " + totals + ", 'card', 'stripe', '" + customer_ +
           "', 'Ann', 'ann@example.com', '+49 30 1', '" + billing + "', '" + std::string(kAddress) + "')";
  }

  static constexpr const char* kAddress =
      R"({"first_name":"Ann","last_name":"Lee","phone":"+49 30 1","line1":"Main Street 1","line2":null,)"
      R"("city":"Berlin","state":"Berlin","postal_code":"10115","country":"Germany","country_code":"DE"})";

  TestStore store_;
  std::string product_, customer_;
};

TEST_F(Schema, StockCannotGoBelowZeroButMayBeUntracked) {
  expect_refused(variant(", stock", ", -1"), kCheckViolation);
  expect_accepted(variant(", stock", ", 0"));
  expect_accepted(variant(", stock", ", null"));
}

TEST_F(Schema, AmountsAreNonNegativeAndDiscountsLeaveAPrice) {
  expect_refused("insert into variants (store_id, product_id, title, sku, price, position) values ('" + store_.id +
                     "', '" + product_ + "', 'D', 'S', -1.00, 0)",
                 kCheckViolation);
  expect_refused(variant(", discount_type, discount_value", ", 'percentage', 100"), kCheckViolation);
  expect_refused(variant(", discount_type, discount_value", ", 'fixed', 12.00"), kCheckViolation);
  expect_refused(variant(", discount_type, discount_value", ", null, 1.00"), kCheckViolation);
  expect_refused(variant(", discount_type, discount_value", ", 'fixed', 0"), kCheckViolation);
  expect_refused(variant(", discount_type, discount_value", ", 'coupon', 1.00"), kCheckViolation);
  expect_accepted(variant(", discount_type, discount_value", ", 'fixed', 11.99"));
  expect_accepted(variant(", discount_type, discount_value", ", 'percentage', 99.99"));
}

TEST_F(Schema, CurrencyIsThreeUpperCaseLetters) {
  for (const char* bad : {"EURO", "EU", "eur"})
    expect_refused(std::string("insert into stores (name, slug, url, currency, locale, plan, owner_email) values"
                               " ('S', 'cur-test', 'https://x.example', '") + bad + "', 'en', 'pro', 'o@x.example')",
                   kCheckViolation);
}

TEST_F(Schema, EnumColumnsTakeOnlyTheirValues) {
  expect_refused("update products set type = 'service' where id = '" + product_ + "'", kCheckViolation);
  expect_refused("update products set status = 'live' where id = '" + product_ + "'", kCheckViolation);
  expect_refused("update stores set plan = 'enterprise' where id = '" + store_.id + "'", kCheckViolation);
  expect_refused("update customers set email_status = 'spam' where id = '" + customer_ + "'", kCheckViolation);
  expect_refused(order("10.00, 0, 0, 10.00", kAddress, "shipped"), kCheckViolation);
  expect_refused(order("10.00, 0, 0, 10.00", kAddress, "completed", "phone"), kCheckViolation);
  expect_refused("insert into api_keys (store_id, name, key_hash, prefix, access, scopes, created_by) select '" +
                     store_.id + "', 'k', repeat('a', 64), 'sk_live_abcd', 'custom', '{orders:delete}', id"
                     " from staff_members where store_id = '" + store_.id + "'",
                 kCheckViolation);
}

TEST_F(Schema, SlugsAreUniquePerStoreAndStoreSlugsGlobally) {
  expect_refused("insert into products (store_id, name, slug, type, status) values ('" + store_.id +
                     "', 'Mug 2', 'mug', 'physical', 'draft')",
                 kUniqueViolation);
  TestStore other = db().create_store();
  expect_accepted("insert into products (store_id, name, slug, type, status) values ('" + other.id +
                  "', 'Mug', 'mug', 'physical', 'draft')");
  expect_refused("insert into stores (name, slug, url, currency, locale, plan, owner_email) values ('S', '" +
                     store_.slug + "', 'https://x.example', 'EUR', 'en', 'pro', 'o@x.example')",
                 kUniqueViolation);
}

TEST_F(Schema, OrdersKeepTotalsAddressesAndNumbersConsistent) {
  expect_refused(order("10.00, 2.00, 1.00, 14.00"), kCheckViolation);
  expect_refused(order("-1.00, 0, 0, -1.00"), kCheckViolation);
  expect_refused(order("10.00, 0, 0, 10.00", R"({"first_name":"Ann"})"), kCheckViolation);
  std::string with_line2 = kAddress;
  with_line2.replace(with_line2.find("null"), 4, "\"Floor 2\"");
  std::string extra_key = kAddress;
  extra_key.insert(1, R"("company":"X",)");
  expect_refused(order("10.00, 0, 0, 10.00", extra_key), kCheckViolation);
  expect_accepted(order("10.00, 2.00, 1.00, 13.00", with_line2));
  {
    auto conn = db().connect();
    pqxx::work work(*conn);
    work.exec(order("10.00, 0, 0, 10.00"));
    try {
      work.exec(order("20.00, 0, 0, 20.00"));
      ADD_FAILURE() << "a second order number 1001 was accepted";
    } catch (const pqxx::sql_error& e) {
      EXPECT_EQ(e.sqlstate(), kUniqueViolation);
    }
  }
}

// The rows every write adds are checked by their writers, not by constraints that every
// insert would pay for (sql/013_write_path_constraints.sql): none is back by mistake.
TEST_F(Schema, TheWriteHistoryTablesLeaveTheirChecksToTheirWriters) {
  EXPECT_EQ(query_value("select count(*) from pg_constraint where conrelid in"
                        " ('stock_movements'::regclass, 'idempotency_keys'::regclass) and contype in ('c', 'f')"),
            "0");
  EXPECT_EQ(query_value("select attstorage from pg_attribute where attrelid = 'events'::regclass and attname = 'payload'"),
            "m");
}

// An event's payload is built by the statement that inserts the event, not by a function
// call of its own: api.event_payload is inlined (a SQL function that is not would be parsed
// and planned again on every write).
TEST_F(Schema, TheEventPayloadIsInlinedIntoItsStatement) {
  const std::string plan = query_value(
      "explain (verbose, costs off, format json) select api.event_payload('" + store_.id + "', 'product.updated',"
      " now(), '" + store_.id + "', '{}', '{}')");
  EXPECT_EQ(plan.find("event_payload"), std::string::npos) << plan;
  EXPECT_NE(plan.find("to_char"), std::string::npos) << plan;
}

TEST_F(Schema, NowMsRoundsUpToTheMillisecond) {
  EXPECT_EQ(query_value("select api.now_ms() >= now() and api.now_ms() - now() < interval '1 millisecond'"
                        " and extract(microseconds from api.now_ms())::bigint % 1000 = 0"),
            "t");
  // Inlined (no per-call fmgr_sql): the plan shows its body, not a call of it.
  EXPECT_EQ(query_value("explain (verbose, costs off, format json) select api.now_ms()").find("now_ms"),
            std::string::npos);
  EXPECT_EQ(query_value("select api.config('invalidate_channel') || ',' || api.config('events_channel')"),
            "storeapi_invalidate,storeapi_events");
  EXPECT_EQ(query_value("select (api.plan_limits('pro')).max_keys || ',' || (api.plan_limits('advanced')).rpm"),
            "5,300");
}

}  // namespace
}  // namespace storeapi::testing
