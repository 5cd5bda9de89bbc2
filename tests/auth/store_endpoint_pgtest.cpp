// GET /v1/store exactly as the spec describes it: every field with its type and value,
// the calling key's summary (prefix = first 12 characters, scopes as granted, expires_at
// null or RFC 3339 with milliseconds), and never the full key; no query parameters.
#include <simdjson.h>

#include <set>
#include <string>
#include <vector>

#include "common/regex.hpp"
#include "auth/auth_fixture.hpp"

namespace storeapi::testing {
namespace {

const std::set<std::string> kStoreMembers{"object",   "id",     "name", "slug",   "url",
                                          "currency", "locale", "plan", "api_key"};
const std::set<std::string> kKeyMembers{"id", "name", "prefix", "scopes", "expires_at"};

std::set<std::string> members_of(simdjson::dom::object o) {
  std::set<std::string> out;
  for (auto field : o) out.insert(std::string(field.key));
  return out;
}

std::string text(simdjson::dom::object o, const char* key) {
  std::string_view s;
  EXPECT_EQ(o[key].get(s), simdjson::SUCCESS) << key << " is not a string";
  return std::string(s);
}

std::set<std::string> scopes_of(simdjson::dom::object api_key) {
  std::set<std::string> out;
  simdjson::dom::array scopes;
  EXPECT_EQ(api_key["scopes"].get(scopes), simdjson::SUCCESS) << "scopes is not an array";
  for (auto s : scopes) {
    std::string_view name;
    EXPECT_EQ(s.get(name), simdjson::SUCCESS) << "a scope is not a string";
    out.insert(std::string(name));
  }
  EXPECT_EQ(out.size(), scopes.size()) << "a scope is listed twice";
  return out;
}

class StoreEndpoint : public AuthTest {
 protected:
  // GET /v1/store with `key`: expects 200 and exactly the spec's members, in `store` and in
  // its `api_key` (both valid until the next fetch).
  void fetch(const std::string& key) {
    reply = get("/v1/store", bearer(key));
    ASSERT_EQ(reply.status, 200) << reply.body;
    ASSERT_EQ(parser.parse(simdjson::padded_string(reply.body)).get(store), simdjson::SUCCESS) << reply.body;
    EXPECT_EQ(members_of(store), kStoreMembers) << reply.body;
    ASSERT_EQ(store["api_key"].get(api_key), simdjson::SUCCESS) << reply.body;
    EXPECT_EQ(members_of(api_key), kKeyMembers) << reply.body;
  }

  simdjson::dom::parser parser;
  HttpResponse reply;
  simdjson::dom::object store;
  simdjson::dom::object api_key;
};

TEST_F(StoreEndpoint, EveryFieldOfTheStoreAndTheCallingKey) {
  auto created = db_.create_store("pro");
  auto key = create_key(created.id);
  ASSERT_NO_FATAL_FAILURE(fetch(key.key));
  EXPECT_EQ(reply.header("content-type"), "application/json");
  expect_rate_headers(reply, 60);

  EXPECT_EQ(text(store, "object"), "store");
  EXPECT_EQ(text(store, "id"), created.id);
  EXPECT_EQ(text(store, "name"), "Test store " + created.slug);
  EXPECT_EQ(text(store, "slug"), created.slug);
  EXPECT_EQ(text(store, "url"), "https://" + created.slug + ".example.com");
  EXPECT_EQ(text(store, "currency"), "EUR");
  EXPECT_EQ(text(store, "locale"), "en");
  EXPECT_EQ(text(store, "plan"), "pro");

  EXPECT_EQ(text(api_key, "id"), key.id);
  EXPECT_EQ(text(api_key, "name"), "test key");
  EXPECT_EQ(text(api_key, "prefix"), key.key.substr(0, 12));
  EXPECT_EQ(scopes_of(api_key),
            (std::set<std::string>{"orders:write", "bookings:write", "products:write", "customers:write"}));
  EXPECT_TRUE(api_key["expires_at"].is_null());

  // The secret part of the key appears nowhere in the answer.
  EXPECT_EQ(reply.body.find(key.key.substr(12)), std::string::npos);
}

TEST_F(StoreEndpoint, ScopesAsGrantedForEachAccessLevel) {
  auto created = db_.create_store();
  struct Case {
    std::string access, scopes;
    std::set<std::string> listed;
  };
  const std::vector<Case> cases{
      {"read", "", {"orders:read", "bookings:read", "products:read", "customers:read"}},
      {"full", "", {"orders:write", "bookings:write", "products:write", "customers:write"}},
      // The implied :read of a :write scope is not added.
      {"custom", "orders:write,customers:read", {"orders:write", "customers:read"}},
      {"custom", "products:read", {"products:read"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.access + " " + c.scopes);
    ASSERT_NO_FATAL_FAILURE(fetch(create_key(created.id, c.access, c.scopes).key));
    EXPECT_EQ(scopes_of(api_key), c.listed);
  }
}

TEST_F(StoreEndpoint, ExpiresAtIsTheKeysExpiryInRfc3339WithMilliseconds) {
  auto created = db_.create_store();
  ASSERT_NO_FATAL_FAILURE(fetch(create_key(created.id, "read", "", "2099-03-04T05:06:07.891Z").key));
  EXPECT_EQ(text(api_key, "expires_at"), "2099-03-04T05:06:07.891Z");

  // A relative expiry is shown the same way, and equals what the database holds.
  auto in_30_days = create_key(created.id, "read", "", "30d");
  ASSERT_NO_FATAL_FAILURE(fetch(in_30_days.key));
  std::string shown = text(api_key, "expires_at");
  EXPECT_TRUE(std::regex_match(shown, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"))) << shown;
  EXPECT_EQ(shown, query_value("select to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
                               " from api_keys where id = '" + in_30_days.id + "'"));
}

TEST_F(StoreEndpoint, HeadAnswersTheSameHeadersWithoutABody) {
  auto created = db_.create_store();
  auto key = create_key(created.id);
  auto c = connect();
  HttpResponse full = c.get("/v1/store", bearer(key.key));
  HttpResponse head = c.request("HEAD", "/v1/store", bearer(key.key));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.header("content-length"), std::to_string(full.body.size()));
  expect_rate_headers(head, 300);
}

// Like the records by id: any query parameter is 400 parameter_unknown (the first), a
// malformed query string parameter_invalid; an empty one is no parameter.
TEST_F(StoreEndpoint, TakesNoQueryParameters) {
  auto created = db_.create_store();
  auto key = create_key(created.id);
  struct Case {
    std::string target, code, param;
  };
  for (const Case& c : std::vector<Case>{{"/v1/store?x=1", "parameter_unknown", "x"},
                                         {"/v1/store?x=1&y=2", "parameter_unknown", "x"},
                                         {"/v1/store?a=%zz", "parameter_invalid", "a"}}) {
    SCOPED_TRACE(c.target);
    HttpResponse refused = get(c.target, bearer(key.key));
    EXPECT_EQ(refused.status, 400);
    ErrorBody error = error_of(refused);
    EXPECT_EQ(error.type, "invalid_request_error");
    EXPECT_EQ(error.code, c.code);
    EXPECT_EQ(error.param, c.param);
    expect_rate_headers(refused);
  }
  EXPECT_EQ(get("/v1/store?", bearer(key.key)).status, 200);
  // Authentication first.
  expect_error(get("/v1/store?x=1"), 401, "authentication_error", "missing_api_key");
}

}  // namespace
}  // namespace storeapi::testing
