// storeapi-admin key create / revoke / list.
#include "admin_fixture.hpp"
#include "common/crypto.hpp"
#include "common/regex.hpp"

namespace storeapi::testing {
namespace {

using Keys = AdminTest;

std::vector<std::string> scopes_of(simdjson::dom::element key) {
  std::vector<std::string> out;
  for (auto scope : key["scopes"].get_array()) out.emplace_back(std::string_view(scope));
  return out;
}

std::vector<std::string> create(const TestStore& store, std::vector<std::string> extra) {
  std::vector<std::string> args = {"key", "create", "--store", store.id, "--name", "ERP sync"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST_F(Keys, CreateShowsTheKeyOnceAndStoresOnlyItsHash) {
  TestStore store = db().create_store();
  auto json = ok(create(store, {"--access", "full"}));
  std::string key = str(json, "key");
  EXPECT_TRUE(std::regex_match(key, std::regex("sk_live_[A-Za-z0-9]{32}"))) << key;
  EXPECT_EQ(str(json, "prefix"), key.substr(0, 12));
  EXPECT_EQ(str(json, "name"), "ERP sync");
  EXPECT_EQ(str(json, "status"), "active");
  EXPECT_TRUE(json["expires_at"].is_null());
  EXPECT_EQ(scopes_of(json),
            (std::vector<std::string>{"orders:write", "bookings:write", "products:write", "customers:write"}));
  std::string id = str(json, "id");
  EXPECT_EQ(query_value("select key_hash from api_keys where id = '" + id + "'"), crypto::sha256_hex(key));
  EXPECT_EQ(query_value("select count(*) from api_keys k where id = '" + id + "' and k::text like '%" +
                        key.substr(12) + "%'"),
            "0")
      << "the secret part of the key is stored";
  EXPECT_EQ(str(json, "created_by"),
            query_value("select id from staff_members where store_id = '" + store.id + "' and is_owner"));
}

TEST_F(Keys, CreateNotifiesTheServersAndQueuesTheOwnersEmail) {
  TestStore store = db().create_store();
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");
  auto json = ok(create(store, {"--access", "read"}));
  EXPECT_TRUE(listener.wait_for("key:" + crypto::sha256_hex(str(json, "key"))));
  EXPECT_EQ(query_value("select concat_ws('|', kind, template, recipient, locale, status, data->>'api_key_id',"
                        " data->>'prefix') from notifications where store_id = '" + store.id + "'"),
            "owner|api_key_created|" + store.owner_email + "|en|pending|" + str(json, "id") + "|" +
                str(json, "prefix"));
}

TEST_F(Keys, AccessLevelsMapToScopes) {
  TestStore store = db().create_store();
  EXPECT_EQ(scopes_of(ok(create(store, {"--access", "read"}))),
            (std::vector<std::string>{"orders:read", "bookings:read", "products:read", "customers:read"}));
  auto custom = ok(create(store, {"--access", "custom", "--scopes", "products:write,orders:read"}));
  EXPECT_EQ(scopes_of(custom), (std::vector<std::string>{"orders:read", "products:write"}));
  EXPECT_EQ(str(custom, "access"), "custom");
  EXPECT_EQ(query_value("select scopes::text from api_keys where id = '" + str(custom, "id") + "'"),
            "{orders:read,products:write}");
}

TEST_F(Keys, ExpiryChoices) {
  TestStore store = db().create_store();
  auto in30 = ok(create(store, {"--access", "read", "--expires", "30d"}));
  EXPECT_EQ(query_value("select abs(extract(epoch from expires_at - (now() + interval '30 days'))) < 60"
                        " from api_keys where id = '" + str(in30, "id") + "'"),
            "t");
  auto in1y = ok(create(store, {"--access", "read", "--expires", "1y"}));
  EXPECT_EQ(query_value("select abs(extract(epoch from expires_at - (now() + interval '1 year'))) < 60"
                        " from api_keys where id = '" + str(in1y, "id") + "'"),
            "t");
  auto past = ok(create(store, {"--access", "read", "--expires", "2020-01-02T03:04:05.678+01:00"}));
  EXPECT_EQ(str(past, "expires_at"), "2020-01-02T02:04:05.678Z");
  EXPECT_EQ(str(past, "status"), "expired");
  auto never = ok(create(store, {"--access", "read", "--expires", "never"}));
  EXPECT_TRUE(never["expires_at"].is_null());
  fails(create(store, {"--access", "read", "--expires", "2w"}), 2);
  fails(create(store, {"--access", "read", "--expires", "2026-13-01T00:00:00Z"}), 2);
}

TEST_F(Keys, CreateRejectsBadScopesAndAccess) {
  TestStore store = db().create_store();
  fails(create(store, {"--access", "admin"}), 2);
  fails(create(store, {"--access", "custom"}), 2);
  fails(create(store, {"--access", "custom", "--scopes", ""}), 2);
  fails(create(store, {"--access", "custom", "--scopes", "orders:delete"}), 2);
  fails(create(store, {"--access", "custom", "--scopes", "invoices:read"}), 2);
  fails(create(store, {"--access", "custom", "--scopes", "orders:none"}), 2);
  fails(create(store, {"--access", "custom", "--scopes", "orders:read,orders:write"}), 2);
  fails(create(store, {"--access", "read", "--scopes", "orders:read"}), 2);
  fails({"key", "create", "--store", store.id, "--name", "", "--access", "read"}, 2);
  fails({"key", "create", "--store", "00000000-0000-4000-8000-000000000000", "--name", "k", "--access", "read"}, 1);
}

TEST_F(Keys, FreeStoresCannotHaveKeys) {
  TestStore store = db().create_store("free");
  EXPECT_NE(fails(create(store, {"--access", "read"}), 1).find("plan"), std::string::npos);
}

TEST_F(Keys, ProAllowsFiveActiveKeysAndRevokedOrExpiredOnesFreeTheirSlot) {
  TestStore store = db().create_store("pro");
  ok(create(store, {"--access", "read", "--expires", "2020-01-01T00:00:00Z"}));  // expired: not counted
  std::string first;
  for (int i = 0; i < 5; ++i) {
    auto json = ok(create(store, {"--access", "read"}));
    if (i == 0) first = str(json, "id");
  }
  EXPECT_NE(fails(create(store, {"--access", "read"}), 1).find("key limit"), std::string::npos);
  ok({"key", "revoke", "--key", first});
  ok(create(store, {"--access", "read"}));
  fails(create(store, {"--access", "read"}), 1);
}

TEST_F(Keys, AdvancedAllowsTwentyActiveKeys) {
  TestStore store = db().create_store("advanced");
  for (int i = 0; i < 20; ++i) db().create_key(store.id, "read");
  EXPECT_NE(fails(create(store, {"--access", "read"}), 1).find("20"), std::string::npos);
}

TEST_F(Keys, ACreatorGrantsOnlyWhatTheyHold) {
  TestStore store = db().create_store();
  ok({"staff", "add", "--store", store.id, "--email", "clerk@shop.example", "--access",
      "orders:write,products:read,customers:read"});
  auto by = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--by", "Clerk@Shop.example"});
    return create(store, extra);
  };
  auto granted = ok(by({"--access", "custom", "--scopes", "orders:write,products:read"}));
  EXPECT_EQ(str(granted, "created_by"),
            query_value("select id from staff_members where store_id = '" + store.id + "' and email = 'clerk@shop.example'"));
  ok(by({"--access", "custom", "--scopes", "orders:read"}));
  EXPECT_NE(fails(by({"--access", "custom", "--scopes", "products:write"}), 1).find("products"), std::string::npos);
  EXPECT_NE(fails(by({"--access", "read"}), 1).find("bookings"), std::string::npos);
  fails(by({"--access", "full"}), 1);
  EXPECT_NE(fails(create(store, {"--access", "read", "--by", "stranger@shop.example"}), 1).find("no staff member"),
            std::string::npos);
}

TEST_F(Keys, RevokeMarksTheKeyNotifiesAndQueuesTheOwnersEmail) {
  TestStore store = db().create_store();
  TestKey key = db().create_key(store.id, "full");
  auto conn = db().connect();
  Listener listener(*conn, "storeapi_invalidate");
  auto json = ok({"key", "revoke", "--key", key.id});
  EXPECT_EQ(str(json, "status"), "revoked");
  EXPECT_FALSE(json["revoked_at"].is_null());
  EXPECT_TRUE(json["key"].error() == simdjson::NO_SUCH_FIELD) << "revoke must not print a key";
  EXPECT_TRUE(listener.wait_for("key:" + crypto::sha256_hex(key.key)));
  EXPECT_EQ(query_value("select recipient from notifications where store_id = '" + store.id +
                        "' and template = 'api_key_revoked' and data->>'api_key_id' = '" + key.id + "'"),
            store.owner_email);
  EXPECT_NE(fails({"key", "revoke", "--key", key.id}, 1).find("already revoked"), std::string::npos);
  EXPECT_NE(fails({"key", "revoke", "--key", "00000000-0000-4000-8000-000000000000"}, 1).find("no API key"),
            std::string::npos);
  fails({"key", "revoke", "--key", "sk_live_x"}, 1);
}

TEST_F(Keys, ListShowsKeysNewestFirstWithoutSecrets) {
  TestStore store = db().create_store();
  TestKey older = db().create_key(store.id, "read");
  TestKey newer = db().create_key(store.id, "custom", "bookings:write");
  // Both may have been made within one millisecond; make the order unambiguous.
  query_value("update api_keys set created_at = created_at - interval '1 minute' where id = '" + older.id +
              "' returning id");
  ok({"key", "revoke", "--key", older.id});
  CliResult raw = run_admin({"key", "list", "--store", store.id}, db().url());
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(raw.out.find(newer.key.substr(12)), std::string::npos);
  EXPECT_EQ(raw.out.find(crypto::sha256_hex(newer.key)), std::string::npos);
  EXPECT_EQ(raw.out.find("key_hash"), std::string::npos);
  auto json = parse_json(parser_, raw.out);
  EXPECT_EQ(str(json, "object"), "list");
  auto data = json["data"].get_array().value();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(str(data.at(0).value(), "id"), newer.id);
  EXPECT_EQ(str(data.at(0).value(), "status"), "active");
  EXPECT_EQ(str(data.at(1).value(), "id"), older.id);
  EXPECT_EQ(str(data.at(1).value(), "status"), "revoked");
  EXPECT_TRUE(data.at(0).value()["key"].error() == simdjson::NO_SUCH_FIELD);
  fails({"key", "list", "--store", "00000000-0000-4000-8000-000000000000"}, 1);
}

}  // namespace
}  // namespace storeapi::testing
