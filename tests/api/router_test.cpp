#include "api/routing/router.hpp"

#include "support/allocations.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace storeapi::api;
using storeapi::auth::Scope;
using storeapi::auth::ScopeSet;
using storeapi::http::Method;
using storeapi::http::parse_method;

namespace {

constexpr std::string_view order_id = "0b5e7a3c-1f2d-4c8e-9a6b-3d2f1e0c9b8a";
constexpr std::string_view variant_id = "7F3E2D1C-0B9A-4887-a665-544332211000";  // either case

std::string fill(std::string_view pattern) {
  std::string path(pattern);
  for (const auto& [placeholder, value] : {std::pair{"{id}", order_id}, std::pair{"{variant_id}", variant_id}}) {
    const auto at = path.find(placeholder);
    if (at != std::string::npos) path.replace(at, std::string_view(placeholder).size(), value);
  }
  return path;
}

// Every endpoint of the spec (Summary and Scopes sections) and the health checks, written
// out here independently of the router's table.
struct Endpoint {
  Method method;
  std::string_view pattern;
  RouteId id;
  std::string_view scope;  // "" when no scope is needed
  bool needs_key;
  std::string_view allow;
};
const std::vector<Endpoint> endpoints{
    {Method::get, "/healthz", RouteId::healthz, "", false, "GET, HEAD, OPTIONS"},
    {Method::get, "/readyz", RouteId::readyz, "", false, "GET, HEAD, OPTIONS"},
    {Method::get, "/openapi.json", RouteId::openapi_document, "", false, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/store", RouteId::store_get, "", true, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/orders", RouteId::orders_list, "orders:read", true, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/orders/{id}", RouteId::orders_get, "orders:read", true, "GET, HEAD, OPTIONS"},
    {Method::post, "/v1/orders/{id}/fulfillment", RouteId::orders_fulfillment, "orders:write", true, "POST, OPTIONS"},
    {Method::get, "/v1/bookings", RouteId::bookings_list, "bookings:read", true, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/bookings/{id}", RouteId::bookings_get, "bookings:read", true, "GET, HEAD, OPTIONS"},
    {Method::post, "/v1/bookings/{id}/accept", RouteId::bookings_accept, "bookings:write", true, "POST, OPTIONS"},
    {Method::post, "/v1/bookings/{id}/cancel", RouteId::bookings_cancel, "bookings:write", true, "POST, OPTIONS"},
    {Method::get, "/v1/products", RouteId::products_list, "products:read", true, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/products/{id}", RouteId::products_get, "products:read", true, "GET, HEAD, OPTIONS"},
    {Method::patch, "/v1/products/{id}/variants/{variant_id}", RouteId::variant_update, "products:write", true,
     "PATCH, OPTIONS"},
    {Method::post, "/v1/products/{id}/variants/{variant_id}/stock", RouteId::variant_stock, "products:write", true,
     "POST, OPTIONS"},
    {Method::get, "/v1/customers", RouteId::customers_list, "customers:read", true, "GET, HEAD, OPTIONS"},
    {Method::get, "/v1/customers/{id}", RouteId::customers_get, "customers:read", true, "GET, HEAD, OPTIONS"},
};

constexpr Method all_methods[] = {Method::get, Method::head, Method::post, Method::patch, Method::options,
                                  Method::other};

}  // namespace

TEST(Router, TableCoversTheSpecExactly) {
  ASSERT_EQ(routes().size(), endpoints.size());
  for (const auto& e : endpoints) {
    const Route& r = route(e.id);
    EXPECT_EQ(r.id, e.id);
    EXPECT_EQ(r.method, e.method) << e.pattern;
    EXPECT_EQ(r.pattern, e.pattern);
    EXPECT_EQ(r.needs_key, e.needs_key) << e.pattern;
    EXPECT_EQ(r.scope ? scope_name(*r.scope) : "", e.scope) << e.pattern;
  }
}

// The labels the HTTP layer counts requests by: one per route, at the route's index, with
// its template (metrics series are made up front by index; a wrong index mislabels them).
TEST(Router, LabelsAreTheRoutesTemplatesByIndex) {
  ASSERT_EQ(route_labels().size(), routes().size());
  for (const Route& r : routes()) {
    const storeapi::http::RouteLabel& label = route_label(r.id);
    EXPECT_EQ(label.index, static_cast<std::size_t>(r.id)) << r.pattern;
    EXPECT_EQ(label.pattern, r.pattern);
    EXPECT_EQ(&route_labels()[label.index], &label) << r.pattern;
  }
}

TEST(Router, EveryRouteWithEveryMethod) {
  for (const auto& e : endpoints) {
    const std::string path = fill(e.pattern);
    for (const Method method : all_methods) {
      const Match m = match(method, path);
      const bool served = method == e.method || (method == Method::head && e.method == Method::get);
      EXPECT_EQ(m.needs_key, e.needs_key) << path;
      if (served) {
        ASSERT_EQ(m.kind, MatchKind::found) << path << " " << static_cast<int>(method);
        EXPECT_EQ(m.route, e.id) << path;
        EXPECT_EQ(m.malformed_param, "") << path;
        EXPECT_EQ(m.allow, "");
      } else {
        EXPECT_EQ(m.kind, method == Method::options ? MatchKind::options : MatchKind::method_not_allowed)
            << path << " " << static_cast<int>(method);
        EXPECT_EQ(m.allow, e.allow) << path;
      }
    }
  }
}

TEST(Router, ExtractsPathParameters) {
  // The parameters are views into the path.
  const std::string order_path = fill("/v1/orders/{id}");
  Match m = match(Method::get, order_path);
  EXPECT_EQ(m.id, order_id);
  EXPECT_EQ(m.id.data(), order_path.data() + 11);
  EXPECT_EQ(m.variant_id, "");
  const std::string stock_path = fill("/v1/products/{id}/variants/{variant_id}/stock");
  m = match(Method::post, stock_path);
  ASSERT_EQ(m.kind, MatchKind::found);
  EXPECT_EQ(m.id, order_id);
  EXPECT_EQ(m.variant_id, variant_id);
  m = match(Method::get, "/v1/orders");
  EXPECT_EQ(m.id, "");
}

TEST(Router, UnknownPathsAreNotFoundWhateverTheMethod) {
  const std::string id(order_id);
  for (const std::string& path :
       {std::string("/v1/nope"), std::string("/v1"), std::string("/v1/"), std::string("/"), std::string(""),
        std::string("*"), std::string("v1/orders"), std::string("http://localhost/v1/orders"),
        std::string("/V1/orders"), std::string("/v2/orders"), std::string("/v1/Orders"), std::string("/v1/store/x"),
        std::string("/v1/healthz"), "/v1/orders/" + id + "/nope", "/v1/products/" + id + "/variants",
        "/v1/orders/" + id + "/fulfillment/x", std::string("/v1/orders/a/b/c/d/e/f/g"),
        std::string("/v1/%6Frders")}) {
    for (const Method method : all_methods) {
      const Match m = match(method, path);
      EXPECT_EQ(m.kind, MatchKind::not_found) << path;
      EXPECT_TRUE(m.needs_key) << path;
      EXPECT_EQ(m.allow, "") << path;
    }
  }
}

TEST(Router, TrailingSlashesAndEmptySegmentsAreNotFound) {
  const std::string id(order_id);
  for (const std::string& path :
       {std::string("/v1/orders/"), std::string("/v1//orders"), std::string("//v1/orders"), "/v1/orders/" + id + "/",
        "/v1/orders/" + id + "//", "/v1/orders//" + id, std::string("/v1/orders//fulfillment"),
        "/v1/orders/" + id + "/fulfillment/", "/v1/products/" + id + "/variants/", std::string("/v1/store/"),
        std::string("/healthz/"), "/v1/products//variants/" + id}) {
    EXPECT_EQ(match(Method::get, path).kind, MatchKind::not_found) << path;
    EXPECT_EQ(match(Method::post, path).kind, MatchKind::not_found) << path;
  }
}

TEST(Router, MalformedUuidsAreReportedOnlyOnceTheRouteIsKnown) {
  Match m = match(Method::get, "/v1/orders/not-a-uuid");
  EXPECT_EQ(m.kind, MatchKind::found);
  EXPECT_EQ(m.route, RouteId::orders_get);
  EXPECT_EQ(m.malformed_param, "id");
  EXPECT_EQ(m.id, "not-a-uuid");

  // The method is checked first: a wrong method on such a path is still 405.
  m = match(Method::post, "/v1/orders/not-a-uuid");
  EXPECT_EQ(m.kind, MatchKind::method_not_allowed);
  EXPECT_EQ(m.allow, "GET, HEAD, OPTIONS");

  const std::string id(order_id), vid(variant_id);
  EXPECT_EQ(match(Method::patch, "/v1/products/x/variants/y").malformed_param, "id");  // path order
  EXPECT_EQ(match(Method::patch, "/v1/products/" + id + "/variants/y").malformed_param, "variant_id");
  EXPECT_EQ(match(Method::post, "/v1/products/x/variants/" + vid + "/stock").malformed_param, "id");
  EXPECT_EQ(match(Method::post, "/v1/bookings/" + id.substr(1) + "/accept").malformed_param, "id");
  for (const std::string& bad : {"{" + id + "}", id + "0", id.substr(0, 35), "%7B" + id, std::string("123")}) {
    m = match(Method::get, "/v1/customers/" + bad);
    EXPECT_EQ(m.kind, MatchKind::found) << bad;
    EXPECT_EQ(m.malformed_param, "id") << bad;
  }
}

TEST(Router, HealthChecksNeedNoKey) {
  EXPECT_FALSE(match(Method::get, "/healthz").needs_key);
  EXPECT_FALSE(match(Method::post, "/readyz").needs_key);
  EXPECT_EQ(match(Method::post, "/readyz").kind, MatchKind::method_not_allowed);
  EXPECT_TRUE(match(Method::get, "/v1/store").needs_key);
}

TEST(Router, AllocatesNothing) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  const std::string stock_path = fill("/v1/products/{id}/variants/{variant_id}/stock");
  const auto match_some = [&] {
    EXPECT_EQ(match(Method::post, stock_path).kind, MatchKind::found);
    EXPECT_EQ(match(Method::get, "/v1/orders/nope").malformed_param, "id");
    EXPECT_EQ(match(Method::patch, "/v1/orders").kind, MatchKind::method_not_allowed);
    EXPECT_EQ(match(Method::get, "/v1/nope/").kind, MatchKind::not_found);
  };
  EXPECT_EQ(storeapi::testing::allocations_during(match_some), 0u);
}

TEST(Method, ParsesTokens) {
  EXPECT_EQ(parse_method("GET"), Method::get);
  EXPECT_EQ(parse_method("HEAD"), Method::head);
  EXPECT_EQ(parse_method("POST"), Method::post);
  EXPECT_EQ(parse_method("PATCH"), Method::patch);
  EXPECT_EQ(parse_method("OPTIONS"), Method::options);
  for (const char* other : {"get", "PUT", "DELETE", "TRACE", "CONNECT", ""}) {
    EXPECT_EQ(parse_method(other), Method::other) << other;
  }
}

TEST(Scopes, RoutesAreAllowedByTheirScopeAndItsWrite) {
  for (const Route& r : routes()) {
    if (!r.scope) continue;
    ScopeSet exact;
    exact.add(*r.scope);
    EXPECT_TRUE(scope_allows(exact, r.scope)) << r.pattern;
    ScopeSet everything_else(static_cast<std::uint8_t>(~exact.bits()));
    // Only the write of the same resource can stand in for a read.
    const bool is_read = scope_name(*r.scope).ends_with(":read");
    EXPECT_EQ(scope_allows(everything_else, r.scope), is_read) << r.pattern;
  }
}
