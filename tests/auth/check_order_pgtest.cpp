// docs/DESIGN.md §2's check order against the real server: authentication (401) → plan (403
// plan_required) → rate limit (429) → route (404/405) → scope (403 insufficient_scope) →
// validation (400). Each test pits two checks against each other in one request.
#include "auth/auth_fixture.hpp"

namespace storeapi::testing {
namespace {

using CheckOrder = AuthTest;

const std::string kOrderPath = "/v1/orders/0b6c4a8e-2f1d-4c3b-9e5a-7d8f6a1b2c3d";

TEST_F(CheckOrder, UnknownPathWithoutKeyIsUnauthenticatedFirst) {
  expect_error(get("/v1/no-such-thing"), 401, "authentication_error", "missing_api_key");
  expect_error(get("/nothing/here"), 401, "authentication_error", "missing_api_key");
  expect_error(get("/v1/no-such-thing", bearer("sk_live_short")), 401, "authentication_error", "invalid_api_key");
  expect_error(connect().request("DELETE", "/v1/orders", {}), 401, "authentication_error", "missing_api_key");
  expect_error(connect().request("OPTIONS", "/v1/orders", {}), 401, "authentication_error", "missing_api_key");
}

TEST_F(CheckOrder, UnknownPathWithKeyIsNotFoundWithRateLimitHeaders) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  for (const char* path : {"/v1/no-such-thing", "/v1/orders/", "/v2/store", "/v1/orders/" "x/y/z/w/v"}) {
    SCOPED_TRACE(path);
    HttpResponse r = get(path, bearer(key.key));
    expect_error(r, 404, "invalid_request_error", "route_not_found");
    expect_rate_headers(r, 300);
  }
}

TEST_F(CheckOrder, RevokedKeyOnAnUnknownPathIsUnauthenticated) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  admin({"key", "revoke", "--key", key.id});
  expect_error(get("/v1/no-such-thing", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
}

TEST_F(CheckOrder, PlanComesBeforeRouteAndScope) {
  auto store = db_.create_store("pro");
  auto key = create_key(store.id, "read");
  admin({"store", "set-plan", "--store", store.id, "--plan", "free"});
  expect_error(get("/v1/no-such-thing", bearer(key.key)), 403, "permission_error", "plan_required");
  expect_error(connect().request_json("POST", kOrderPath + "/fulfillment", bearer(key.key), "{}"), 403, "permission_error",
               "plan_required");
}

TEST_F(CheckOrder, RateLimitComesBeforeRouteAndScope) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "1"});
  auto c = connect();
  ASSERT_EQ(c.get("/v1/store", bearer(key.key)).status, 200);
  for (auto [method, path] : {std::pair{"GET", std::string("/v1/no-such-thing")}, {"DELETE", std::string("/v1/orders")},
                              {"POST", kOrderPath + "/fulfillment"}}) {
    SCOPED_TRACE(path);
    Headers headers = bearer(key.key);
    if (std::string_view(method) == "POST") headers.emplace_back("Content-Length", "0");  // as clients send it
    HttpResponse r = c.request(method, path, headers);
    expect_error(r, 429, "rate_limit_error", "rate_limited");
    expect_rate_headers(r, 1);
  }
}

TEST_F(CheckOrder, WrongMethodWithKeyIsMethodNotAllowedWithAllow) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  HttpResponse r = connect().request("DELETE", "/v1/orders", bearer(key.key));
  expect_error(r, 405, "invalid_request_error", "method_not_allowed");
  EXPECT_EQ(r.header("allow"), "GET, HEAD, OPTIONS");
  expect_rate_headers(r, 300);

  HttpResponse options = connect().request("OPTIONS", kOrderPath + "/fulfillment", bearer(key.key));
  EXPECT_EQ(options.status, 204);
  EXPECT_EQ(options.header("allow"), "POST, OPTIONS");
  expect_rate_headers(options, 300);
}

TEST_F(CheckOrder, ScopeComesBeforeAMalformedUuidInThePath) {
  auto store = db_.create_store();
  auto orders_only = create_key(store.id, "custom", "orders:read");
  // Lacking the scope: 403, not 400.
  expect_error(get("/v1/products/not-a-uuid", bearer(orders_only.key)), 403, "permission_error",
               "insufficient_scope");
  expect_error(connect().request_json("PATCH", "/v1/products/nope/variants/nope", bearer(orders_only.key), "{}"), 403,
               "permission_error", "insufficient_scope");
  // Holding it: the uuid is validated, naming the parameter.
  HttpResponse bad_id = get("/v1/orders/not-a-uuid", bearer(orders_only.key));
  EXPECT_EQ(bad_id.status, 400);
  ErrorBody e = error_of(bad_id);
  EXPECT_EQ(e.code, "parameter_invalid");
  EXPECT_EQ(e.param, "id");
  expect_rate_headers(bad_id, 300);

  auto full = create_key(store.id, "full");
  HttpResponse bad_variant =
      connect().request_json("PATCH", "/v1/products/0b6c4a8e-2f1d-4c3b-9e5a-7d8f6a1b2c3d/variants/x", bearer(full.key), "{}");
  EXPECT_EQ(bad_variant.status, 400);
  EXPECT_EQ(error_of(bad_variant).param, "variant_id");
}

TEST_F(CheckOrder, ScopeComesBeforeBodyValidation) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  expect_error(connect().request_json("POST", kOrderPath + "/fulfillment", bearer(key.key), "not json"), 403,
               "permission_error", "insufficient_scope");
}

TEST_F(CheckOrder, HealthChecksNeedNoKey) {
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(get("/readyz").status, 200);
  HttpResponse r = get("/healthz", bearer("garbage"));
  EXPECT_EQ(r.status, 200);
  expect_no_rate_headers(r);
}

}  // namespace
}  // namespace storeapi::testing
