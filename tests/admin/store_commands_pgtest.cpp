// storeapi-admin store and staff commands, and the tool's generic error handling.
#include "admin_fixture.hpp"

namespace storeapi::testing {
namespace {

using Stores = AdminTest;

TEST_F(Stores, CreatePrintsTheStoreAndAnOwnerHoldingAllAccess) {
  auto json = ok({"store", "create", "--name", "Fjord Goods", "--slug", "fjord-goods", "--currency", "NOK",
                  "--plan", "pro", "--owner-email", "Owner@Fjord.example", "--locale", "nb", "--url",
                  "https://fjord.example"});
  EXPECT_EQ(str(json, "object"), "store");
  EXPECT_EQ(str(json, "name"), "Fjord Goods");
  EXPECT_EQ(str(json, "slug"), "fjord-goods");
  EXPECT_EQ(str(json, "currency"), "NOK");
  EXPECT_EQ(str(json, "locale"), "nb");
  EXPECT_EQ(str(json, "url"), "https://fjord.example");
  EXPECT_EQ(str(json, "plan"), "pro");
  EXPECT_TRUE(json["rate_limit_rpm"].is_null());
  EXPECT_EQ(num(json, "effective_rpm"), 60);
  EXPECT_EQ(str(json, "created_at").size(), 24u);  // 2026-11-21T20:39:02.123Z
  std::string id = str(json, "id");
  EXPECT_EQ(query_value("select count(*) from stores where id = '" + id + "' and owner_email = 'Owner@Fjord.example'"), "1");
  EXPECT_EQ(query_value("select string_agg(concat_ws(',', is_owner, orders_access, bookings_access, products_access,"
                        " customers_access), ';') from staff_members where store_id = '" + id + "'"),
            "t,write,write,write,write");
  EXPECT_EQ(str(json, "owner_staff_id"),
            query_value("select id from staff_members where store_id = '" + id + "' and is_owner"));
}

TEST_F(Stores, CreateDefaultsLocaleAndUrl) {
  auto json = ok({"store", "create", "--name", "Plain", "--slug", "plain-defaults", "--currency", "EUR", "--plan",
                  "free", "--owner-email", "o@plain.example"});
  EXPECT_EQ(str(json, "locale"), "en");
  EXPECT_EQ(str(json, "url"), "https://plain-defaults.example.com");
  EXPECT_EQ(num(json, "effective_rpm"), 0);
}

TEST_F(Stores, CreateRejectsBadInputAndChangesNothing) {
  const std::vector<std::string> good = {"store", "create", "--name", "Bad", "--slug", "bad-input",
                                         "--currency", "EUR", "--plan", "pro", "--owner-email", "o@bad.example"};
  auto with = [&](const std::string& flag, const std::string& value) {
    auto args = good;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag) args[i + 1] = value;
    return args;
  };
  EXPECT_NE(fails(with("--plan", "enterprise"), 2).find("--plan"), std::string::npos);
  EXPECT_NE(fails(with("--currency", "EURO"), 2).find("--currency"), std::string::npos);
  EXPECT_NE(fails(with("--currency", "eu"), 2).find("--currency"), std::string::npos);
  EXPECT_NE(fails(with("--currency", "eur"), 2).find("--currency"), std::string::npos);
  EXPECT_NE(fails(with("--slug", "Bad Slug"), 2).find("--slug"), std::string::npos);
  EXPECT_NE(fails(with("--owner-email", "nobody"), 2).find("--owner-email"), std::string::npos);
  EXPECT_NE(fails(with("--name", ""), 2).find("--name"), std::string::npos);
  auto missing = good;
  missing.resize(missing.size() - 2);
  EXPECT_NE(fails(missing, 2).find("missing flag --owner-email"), std::string::npos);
  auto unknown = good;
  unknown.insert(unknown.end(), {"--colour", "red"});
  EXPECT_NE(fails(unknown, 2).find("unknown flag --colour"), std::string::npos);
  auto twice = good;
  twice.insert(twice.end(), {"--plan", "pro"});
  EXPECT_NE(fails(twice, 2).find("twice"), std::string::npos);
  auto dangling = good;
  dangling.push_back("--locale");
  EXPECT_NE(fails(dangling, 2).find("needs a value"), std::string::npos);
}

TEST_F(Stores, CreateRejectsADuplicateSlug) {
  TestStore existing = db().create_store();
  EXPECT_NE(fails({"store", "create", "--name", "Copy", "--slug", existing.slug, "--currency", "EUR", "--plan",
                   "pro", "--owner-email", "o@copy.example"},
                  1)
                .find("already exists"),
            std::string::npos);
}

TEST_F(Stores, SetPlanChangesThePlanAndNotifiesTheServers) {
  TestStore store = db().create_store("pro");
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");
  auto json = ok({"store", "set-plan", "--store", store.id, "--plan", "free"});
  EXPECT_EQ(str(json, "plan"), "free");
  EXPECT_EQ(query_value("select plan from stores where id = '" + store.id + "'"), "free");
  EXPECT_TRUE(listener.wait_for("store:" + store.id));
}

TEST_F(Stores, SetPlanRejectsUnknownStoresAndPlans) {
  TestStore store = db().create_store("pro");
  fails({"store", "set-plan", "--store", store.id, "--plan", "gold"}, 2);
  EXPECT_NE(fails({"store", "set-plan", "--store", "00000000-0000-4000-8000-000000000000", "--plan", "pro"}, 1)
                .find("no store"),
            std::string::npos);
  EXPECT_NE(fails({"store", "set-plan", "--store", "not-a-uuid", "--plan", "pro"}, 1).find("no store"),
            std::string::npos);
}

TEST_F(Stores, SetRateLimitOverridesThePlanRateUntilReset) {
  TestStore store = db().create_store("advanced");
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");
  auto set = ok({"store", "set-rate-limit", "--store", store.id, "--rpm", "1200"});
  EXPECT_EQ(num(set, "rate_limit_rpm"), 1200);
  EXPECT_EQ(num(set, "effective_rpm"), 1200);
  EXPECT_TRUE(listener.wait_for("store:" + store.id));
  listener.payloads.clear();
  auto reset = ok({"store", "set-rate-limit", "--store", store.id, "--rpm", "default"});
  EXPECT_TRUE(reset["rate_limit_rpm"].is_null());
  EXPECT_EQ(num(reset, "effective_rpm"), 300);
  EXPECT_EQ(query_value("select rate_limit_rpm from stores where id = '" + store.id + "'"), "");
  EXPECT_TRUE(listener.wait_for("store:" + store.id));
  fails({"store", "set-rate-limit", "--store", store.id, "--rpm", "0"}, 2);
  fails({"store", "set-rate-limit", "--store", store.id, "--rpm", "-5"}, 2);
  fails({"store", "set-rate-limit", "--store", store.id, "--rpm", "fast"}, 2);
}

TEST_F(Stores, StaffAddRecordsPerResourceAccessWithNoneForOmitted) {
  TestStore store = db().create_store();
  auto json = ok({"staff", "add", "--store", store.id, "--email", "clerk@shop.example", "--access",
                  "orders:write,products:read"});
  EXPECT_EQ(str(json, "object"), "staff_member");
  EXPECT_FALSE(flag(json, "is_owner"));
  EXPECT_EQ(str(json["access"], "orders"), "write");
  EXPECT_EQ(str(json["access"], "products"), "read");
  EXPECT_EQ(str(json["access"], "bookings"), "none");
  EXPECT_EQ(str(json["access"], "customers"), "none");
  EXPECT_EQ(query_value("select concat_ws(',', orders_access, bookings_access, products_access, customers_access)"
                        " from staff_members where id = '" + str(json, "id") + "'"),
            "write,none,read,none");
  auto nothing = ok({"staff", "add", "--store", store.id, "--email", "viewer@shop.example"});
  EXPECT_EQ(str(nothing["access"], "orders"), "none");
}

TEST_F(Stores, StaffAddRejectsBadAccessDuplicatesAndUnknownStores) {
  TestStore store = db().create_store();
  fails({"staff", "add", "--store", store.id, "--email", "x@shop.example", "--access", "orders:admin"}, 2);
  fails({"staff", "add", "--store", store.id, "--email", "x@shop.example", "--access", "invoices:read"}, 2);
  fails({"staff", "add", "--store", store.id, "--email", "x@shop.example", "--access", "orders:read,orders:write"}, 2);
  fails({"staff", "add", "--store", store.id, "--email", "not-an-email"}, 2);
  EXPECT_NE(fails({"staff", "add", "--store", store.id, "--email", store.owner_email}, 1).find("already"),
            std::string::npos);
  fails({"staff", "add", "--store", "00000000-0000-4000-8000-000000000000", "--email", "x@shop.example"}, 1);
}

TEST_F(Stores, UnknownCommandsAndMissingDatabaseAreErrors) {
  EXPECT_NE(fails({"store", "destroy"}, 2).find("unknown command 'store destroy'; storeapi-admin --help lists them"),
            std::string::npos);
  EXPECT_NE(fails({}, 2).find("no command given; storeapi-admin --help lists them"), std::string::npos);
  CliResult r = run_admin({"migrate"}, std::nullopt);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("STOREAPI_DATABASE_URL"), std::string::npos);
  CliResult flag = run_admin({"migrate", "--database-url", db().url()}, std::nullopt);
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.out.find("\"applied\":[]"), std::string::npos) << flag.out;
}

}  // namespace
}  // namespace storeapi::testing
