#pragma once
// The route table: every endpoint with its method, path pattern and the scope it needs,
// and the matcher over it (docs/DECISIONS.md, "Routing"). The HTTP layer below knows a
// route only by its label (http/route_label.hpp): this table is the API's.
#include "auth/scopes.hpp"
#include "http/method.hpp"
#include "http/route_label.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace storeapi::api {

using http::Method;
using auth::Scope;

enum class RouteId : std::uint8_t {
  healthz,
  readyz,
  openapi_document,
  store_get,
  orders_list,
  orders_get,
  orders_fulfillment,
  bookings_list,
  bookings_get,
  bookings_accept,
  bookings_cancel,
  products_list,
  products_get,
  variant_update,
  variant_stock,
  customers_list,
  customers_get,
};

struct Route {
  RouteId id;
  Method method;  // GET, POST or PATCH; HEAD is served by the GET route
  // Literal segments, and `{id}` / `{variant_id}` standing for one non-empty segment each.
  std::string_view pattern;
  bool needs_key;              // false only for the health checks and the OpenAPI document
  std::optional<Scope> scope;  // what the key must allow; nullopt: any valid key
};

// The whole table, indexed by RouteId.
std::span<const Route> routes();
const Route& route(RouteId id);
// The labels the HTTP layer counts and logs requests by: one per route, indexed by
// RouteId, so that http::ServerOptions::routes can create every series up front.
std::span<const http::RouteLabel> route_labels();
const http::RouteLabel& route_label(RouteId id);

enum class MatchKind : std::uint8_t {
  found,               // 200 path, or 400 when malformed_param is set
  options,             // OPTIONS on a known path: 204 with `allow`
  method_not_allowed,  // 405 with `allow`
  not_found,           // 404 route_not_found
};

struct Match {
  MatchKind kind = MatchKind::not_found;
  RouteId route{};  // when found
  // Path parameters when found; empty when the route has none. Not yet checked as uuids:
  std::string_view id;
  std::string_view variant_id;
  // "id" or "variant_id" when found and that segment is not a uuid (the first in path
  // order), else empty. Reported as 400 parameter_invalid, after the scope check.
  std::string_view malformed_param;
  std::string_view allow;  // the Allow header value, for options and method_not_allowed
  // Whether the request needs an API key. Authentication comes before routing errors, so
  // this is true for unknown paths too; false only on the health check paths and
  // /openapi.json.
  bool needs_key = true;
};

// `path` is the request target's path, without the query string; it is matched byte for
// byte (no percent-decoding, no normalisation: a trailing slash or an empty segment makes
// a different path, and no route has one).
Match match(Method method, std::string_view path);

}  // namespace storeapi::api
