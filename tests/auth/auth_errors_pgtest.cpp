// Each authentication and permission error of docs/DESIGN.md §2 against the real server: status,
// type, code, the exact envelope, and which of them carry RateLimit headers.
#include "auth/auth_fixture.hpp"

#include "common/crypto.hpp"
#include "common/time.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

using AuthErrors = AuthTest;

const std::string kUnknownOrderPath = "/v1/orders/3f8e7a1c-5b2d-4e6f-9a0b-1c2d3e4f5a6b/fulfillment";

TEST_F(AuthErrors, NoAuthorizationHeaderIsMissingApiKey) {
  HttpResponse r = get("/v1/store");
  expect_error(r, 401, "authentication_error", "missing_api_key");
  expect_no_rate_headers(r);
}

TEST_F(AuthErrors, AnotherSchemeIsMissingApiKey) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  for (const std::string& value : {"Basic " + key.key, "Token " + key.key, "Bearer" + key.key, key.key}) {
    SCOPED_TRACE(value);
    HttpResponse r = get("/v1/store", {{"Authorization", value}});
    expect_error(r, 401, "authentication_error", "missing_api_key");
    expect_no_rate_headers(r);
  }
}

TEST_F(AuthErrors, BearerWithEmptyOrMalformedTokenIsInvalidApiKey) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  const std::string secret = key.key.substr(8);
  const std::vector<std::string> values{
      "Bearer",                                 // no token at all
      "Bearer ",                                // empty token
      "Bearer " + key.key.substr(0, 39),        // one character short
      "Bearer " + key.key + "a",                // one character long
      "Bearer sk_test_" + secret,               // another prefix
      "Bearer SK_LIVE_" + secret,               // the prefix is case-sensitive
      "Bearer sk_live_" + secret.substr(0, 31) + "-",  // not alphanumeric
      "Bearer " + key.key + " extra",           // trailing garbage
  };
  for (const std::string& value : values) {
    SCOPED_TRACE(value);
    HttpResponse r = get("/v1/store", {{"Authorization", value}});
    expect_error(r, 401, "authentication_error", "invalid_api_key");
    expect_no_rate_headers(r);
  }
}

TEST_F(AuthErrors, WellFormedUnknownKeyIsInvalidApiKey) {
  std::string unknown = "sk_live_" + crypto::random_alnum(32);
  HttpResponse r = get("/v1/store", bearer(unknown));
  expect_error(r, 401, "authentication_error", "invalid_api_key");
  expect_no_rate_headers(r);
  // Cached negatively now: the answer stays the same.
  expect_error(get("/v1/store", bearer(unknown)), 401, "authentication_error", "invalid_api_key");
}

TEST_F(AuthErrors, RevokedKeyIsRevokedApiKey) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  admin({"key", "revoke", "--key", key.id});
  HttpResponse r = get("/v1/store", bearer(key.key));
  expect_error(r, 401, "authentication_error", "revoked_api_key");
  expect_no_rate_headers(r);
}

TEST_F(AuthErrors, KeyPastItsExpiryIsExpiredApiKey) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "full", "", "2020-01-01T00:00:00Z");
  HttpResponse r = get("/v1/store", bearer(key.key));
  expect_error(r, 401, "authentication_error", "expired_api_key");
  expect_no_rate_headers(r);
}

TEST_F(AuthErrors, KeyExpiringWhileCachedIsRefusedOnceItsTimePassed) {
  auto store = db_.create_store();
  const timefmt::Micros expiry = timefmt::now_micros() + 3'000'000;
  auto key = create_key(store.id, "full", "", timefmt::format_ms_utc(expiry));
  auto connections = warm_on_every_core(key.key);
  // No invalidation announces an expiry: each core checks it on every request.
  EXPECT_TRUE(eventually([&] { return timefmt::now_micros() > expiry + 1'000; }, std::chrono::seconds(10)));
  for (auto& c : connections)
    expect_error(c.get("/v1/store", bearer(key.key)), 401, "authentication_error", "expired_api_key");
}

TEST_F(AuthErrors, FreeStoreIsPlanRequiredWithoutRateLimitHeaders) {
  auto store = db_.create_store("pro");
  auto key = create_key(store.id);
  admin({"store", "set-plan", "--store", store.id, "--plan", "free"});
  for (const char* path : {"/v1/store", "/v1/orders", "/v1/no-such-path"}) {
    SCOPED_TRACE(path);
    HttpResponse r = get(path, bearer(key.key));
    expect_error(r, 403, "permission_error", "plan_required");
    expect_no_rate_headers(r);
  }
}

TEST_F(AuthErrors, KeyWithoutTheScopeIsInsufficientScopeWithRateLimitHeaders) {
  auto store = db_.create_store();
  auto key = create_key(store.id, "read");
  HttpResponse r = connect().request_json("POST", kUnknownOrderPath, bearer(key.key), R"({"fulfillment_status":"shipped"})");
  expect_error(r, 403, "permission_error", "insufficient_scope");
  expect_rate_headers(r, 300);
}

}  // namespace
}  // namespace storeapi::testing
