// Read-only, full and custom keys against every route of the router table: a route the
// key's scopes allow is not refused with 403, one they do not allow is 403
// insufficient_scope. Routes whose endpoint does not exist yet may answer anything else
// (404 today): this tests the authorisation decision, not the endpoint. The expected
// answer is derived from the spec's scope table here, independently of http::scope_allows.
#include <map>

#include "api/routing/router.hpp"
#include "auth/auth_fixture.hpp"

namespace storeapi::testing {
namespace {

const std::string kUuid = "0b6c4a8e-2f1d-4c3b-9e5a-7d8f6a1b2c3d";

enum class Level { none, read, write };

// Per resource (the first path segment after /v1), the level a key holds.
using Grants = std::map<std::string, Level>;

// The resource and level a route needs, from its path and method: GET reads, POST and
// PATCH write; /v1/store needs nothing (nullopt).
std::optional<std::pair<std::string, Level>> need_of(const api::Route& route) {
  std::string_view p = route.pattern.substr(4);  // after "/v1/"
  std::string resource(p.substr(0, p.find('/')));
  if (resource == "store") return std::nullopt;
  return std::pair{resource, route.method == http::Method::get ? Level::read : Level::write};
}

bool allowed(const Grants& grants, const api::Route& route) {
  auto need = need_of(route);
  if (!need) return true;
  auto it = grants.find(need->first);
  Level held = it == grants.end() ? Level::none : it->second;
  return held >= need->second;  // write includes read
}

std::string concrete_path(std::string_view pattern) {
  std::string out(pattern);
  for (std::string placeholder : {"{id}", "{variant_id}"})
    if (auto at = out.find(placeholder); at != std::string::npos) out.replace(at, placeholder.size(), kUuid);
  return out;
}

const char* method_name(http::Method m) {
  switch (m) {
    case http::Method::get: return "GET";
    case http::Method::post: return "POST";
    case http::Method::patch: return "PATCH";
    default: return "?";
  }
}

class ScopeMatrix : public AuthTest {
 protected:
  // Calls every route needing a key with `key` and checks each decision against `grants`.
  void check_key(const std::string& key, const Grants& grants);
};

void ScopeMatrix::check_key(const std::string& key, const Grants& grants) {
  auto c = connect();
  int checked = 0;
  for (const api::Route& route : api::routes()) {
    if (!route.needs_key) continue;
    std::string path = concrete_path(route.pattern);
    SCOPED_TRACE(std::string(method_name(route.method)) + " " + path);
    HttpResponse r =
        c.request_json(method_name(route.method), path, bearer(key), route.method == http::Method::get ? "" : "{}");
    if (allowed(grants, route)) {
      EXPECT_NE(r.status, 403) << r.body;
      EXPECT_NE(r.status, 401) << r.body;
    } else {
      expect_error(r, 403, "permission_error", "insufficient_scope");
    }
    expect_rate_headers(r, 300);
    ++checked;
  }
  EXPECT_EQ(checked, 14);  // /v1/store and the spec's 13 endpoints
}

TEST_F(ScopeMatrix, ReadOnlyKeyReadsEverythingAndWritesNothing) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  check_key(key.key,
            {{"orders", Level::read}, {"bookings", Level::read}, {"products", Level::read}, {"customers", Level::read}});
}

TEST_F(ScopeMatrix, FullAccessKeyMayCallEveryRoute) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "full");
  check_key(key.key,
            {{"orders", Level::write}, {"bookings", Level::write}, {"products", Level::write},
             {"customers", Level::write}});
}

TEST_F(ScopeMatrix, CustomKeysGetExactlyWhatWasChosen) {
  auto store = db_.create_store();
  struct Case {
    std::string scopes;
    Grants grants;
  };
  const std::vector<Case> cases{
      {"orders:write,customers:read", {{"orders", Level::write}, {"customers", Level::read}}},
      {"bookings:write", {{"bookings", Level::write}}},
      {"products:write,bookings:read", {{"products", Level::write}, {"bookings", Level::read}}},
      {"products:read,customers:write", {{"products", Level::read}, {"customers", Level::write}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.scopes);
    auto key = create_key(store.id, "custom", c.scopes);
    check_key(key.key, c.grants);
  }
}

}  // namespace
}  // namespace storeapi::testing
