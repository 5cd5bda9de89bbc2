// storeapi-admin migrate: an empty database, re-application, edited migrations.
#include "admin/migrations.hpp"
#include "admin_fixture.hpp"

namespace storeapi::testing {
namespace {

std::string value(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::work work(conn);
  return work.exec1(sql)[0].c_str();
}

TEST(Migrate, AppliesEveryMigrationToAnEmptyDatabaseThenNothing) {
  TestDatabase empty(TestDatabase::Schema::empty);
  simdjson::dom::parser parser;

  CliResult first = run_admin({"migrate"}, empty.url());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto json = parse_json(parser, first.out);
  std::vector<std::string> applied;
  for (auto name : json["applied"].get_array()) applied.emplace_back(std::string_view(name));
  std::vector<std::string> embedded;
  for (const auto& m : admin::embedded_migrations()) embedded.emplace_back(m.name);
  EXPECT_EQ(applied, embedded);
  EXPECT_GE(embedded.size(), 5u);
  EXPECT_EQ(value(empty.url(), "select string_agg(name, ',' order by version) from schema_migrations"),
            [&] {
              std::string joined;
              for (const auto& n : embedded) joined += (joined.empty() ? "" : ",") + n;
              return joined;
            }());
  for (const char* table : {"staff_members", "api_keys", "customers", "categories", "products",
                            "product_translations", "variants", "orders", "order_line_items", "bookings",
                            "stock_movements", "events", "webhook_endpoints", "webhook_deliveries",
                            "notifications", "idempotency_keys"})
    EXPECT_EQ(value(empty.url(), std::string("select count(*) from information_schema.columns where table_name = '") +
                                     table + "' and column_name = 'store_id' and is_nullable = 'NO'"),
              "1")
        << table << " must carry store_id";

  std::string schema_before = value(empty.url(),
      "select md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name))"
      " from information_schema.columns where table_schema in ('public', 'api')");
  std::string recorded_before = value(empty.url(), "select string_agg(version || applied_at, ',') from schema_migrations");
  CliResult again = run_admin({"migrate"}, empty.url());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(parse_json(parser, again.out)["applied"].get_array().size(), 0u);
  EXPECT_EQ(value(empty.url(), "select string_agg(version || applied_at, ',') from schema_migrations"), recorded_before);
  EXPECT_EQ(value(empty.url(),
                  "select md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name))"
                  " from information_schema.columns where table_schema in ('public', 'api')"),
            schema_before);
}

TEST(Migrate, RefusesADatabaseWhoseAppliedMigrationWasEdited) {
  TestDatabase db;
  {
    auto conn = db.connect();
    pqxx::work work(*conn);
    work.exec("update schema_migrations set checksum = 'edited' where version = '002'");
    work.commit();
  }
  CliResult r = run_admin({"migrate"}, db.url());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("002_stores_staff_keys"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// The global tables (stores itself, schema_migrations, the fleet's cursor_secret) belong
// to no store.
TEST(Migrate, KeysEveryIndexByStoreExceptTheCrossStoreLookups) {
  TestDatabase db;
  auto conn = db.connect();
  pqxx::work work(*conn);
  auto rows = work.exec(
      "select i.indexrelid::regclass::text from pg_index i join pg_class t on t.oid = i.indrelid"
      " join pg_namespace n on n.oid = t.relnamespace"
      " where n.nspname = 'public' and t.relname not in ('stores', 'schema_migrations', 'cursor_secret')"
      " and (select attname from pg_attribute where attrelid = t.oid and attnum = i.indkey[0]) is distinct from 'store_id'"
      " order by 1");
  std::vector<std::string> exceptions;
  for (const auto& row : rows) exceptions.emplace_back(row[0].c_str());
  EXPECT_EQ(exceptions, (std::vector<std::string>{"api_keys_hash", "events_fanout", "idempotency_keys_purge",
                                                   "notifications_due", "webhook_deliveries_due"}));
}

}  // namespace
}  // namespace storeapi::testing
