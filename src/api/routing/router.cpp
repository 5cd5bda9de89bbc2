#include "api/routing/router.hpp"

#include "common/uuid.hpp"

#include <algorithm>
#include <array>

namespace storeapi::api {
namespace {

constexpr std::array table{
    Route{RouteId::healthz, Method::get, "/healthz", false, std::nullopt},
    Route{RouteId::readyz, Method::get, "/readyz", false, std::nullopt},
    Route{RouteId::openapi_document, Method::get, "/openapi.json", false, std::nullopt},
    Route{RouteId::store_get, Method::get, "/v1/store", true, std::nullopt},
    Route{RouteId::orders_list, Method::get, "/v1/orders", true, Scope::orders_read},
    Route{RouteId::orders_get, Method::get, "/v1/orders/{id}", true, Scope::orders_read},
    Route{RouteId::orders_fulfillment, Method::post, "/v1/orders/{id}/fulfillment", true, Scope::orders_write},
    Route{RouteId::bookings_list, Method::get, "/v1/bookings", true, Scope::bookings_read},
    Route{RouteId::bookings_get, Method::get, "/v1/bookings/{id}", true, Scope::bookings_read},
    Route{RouteId::bookings_accept, Method::post, "/v1/bookings/{id}/accept", true, Scope::bookings_write},
    Route{RouteId::bookings_cancel, Method::post, "/v1/bookings/{id}/cancel", true, Scope::bookings_write},
    Route{RouteId::products_list, Method::get, "/v1/products", true, Scope::products_read},
    Route{RouteId::products_get, Method::get, "/v1/products/{id}", true, Scope::products_read},
    Route{RouteId::variant_update, Method::patch, "/v1/products/{id}/variants/{variant_id}", true,
          Scope::products_write},
    Route{RouteId::variant_stock, Method::post, "/v1/products/{id}/variants/{variant_id}/stock", true,
          Scope::products_write},
    Route{RouteId::customers_list, Method::get, "/v1/customers", true, Scope::customers_read},
    Route{RouteId::customers_get, Method::get, "/v1/customers/{id}", true, Scope::customers_read},
};

constexpr bool table_is_indexed_by_id() {
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (static_cast<std::size_t>(table[i].id) != i) return false;
  }
  return true;
}
static_assert(table_is_indexed_by_id());

constexpr auto labels = [] {
  std::array<http::RouteLabel, table.size()> out{};
  for (std::size_t i = 0; i < table.size(); ++i) out[i] = {i, table[i].pattern};
  return out;
}();

// The methods a path has, as bits: GET 1, POST 2, PATCH 4 (routes use no others).
unsigned method_bit(Method method) {
  switch (method) {
    case Method::get: return 1;
    case Method::post: return 2;
    case Method::patch: return 4;
    default: return 0;
  }
}

// Allow values by method bits: the path's methods, HEAD beside GET, then OPTIONS.
constexpr std::array<std::string_view, 8> allow_values{
    "OPTIONS",
    "GET, HEAD, OPTIONS",
    "POST, OPTIONS",
    "GET, HEAD, POST, OPTIONS",
    "PATCH, OPTIONS",
    "GET, HEAD, PATCH, OPTIONS",
    "POST, PATCH, OPTIONS",
    "GET, HEAD, POST, PATCH, OPTIONS",
};

// The longest pattern, /v1/products/{id}/variants/{variant_id}/stock, has six segments.
constexpr std::size_t max_segments = 6;

struct Segments {
  std::array<std::string_view, max_segments> items{};
  std::size_t count = 0;
};

// The segments of "/a/b/c"; nullopt when `path` does not start with '/', has an empty
// segment (a trailing slash included) or more segments than any route: no route matches
// such a path.
constexpr std::optional<Segments> split_path(std::string_view path) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  Segments out;
  while (!path.empty()) {
    path.remove_prefix(1);  // the '/'
    const std::size_t end = std::min(path.find('/'), path.size());
    if (end == 0 || out.count == max_segments) return std::nullopt;
    out.items[out.count++] = path.substr(0, end);
    path.remove_prefix(end);
  }
  return out;
}

// The table's patterns, split once at compile time.
constexpr auto patterns = [] {
  std::array<Segments, table.size()> out{};
  for (std::size_t i = 0; i < table.size(); ++i) out[i] = *split_path(table[i].pattern);
  return out;
}();

bool is_placeholder(std::string_view segment) { return segment.starts_with('{'); }

// Whether `path` has the pattern's literal segments, and a segment wherever it has a placeholder.
bool matches(const Segments& pattern, const Segments& path) {
  if (pattern.count != path.count) return false;
  for (std::size_t i = 0; i < path.count; ++i) {
    if (!is_placeholder(pattern.items[i]) && pattern.items[i] != path.items[i]) return false;
  }
  return true;
}

// Stores the path segments standing at the pattern's placeholders into `match`.
void take_parameters(const Segments& pattern, const Segments& path, Match& match) {
  for (std::size_t i = 0; i < path.count; ++i) {
    if (is_placeholder(pattern.items[i])) (pattern.items[i] == "{id}" ? match.id : match.variant_id) = path.items[i];
  }
}

bool serves(const Route& route, Method method) {
  return route.method == method || (method == Method::head && route.method == Method::get);
}

}  // namespace

std::span<const Route> routes() { return table; }

const Route& route(RouteId id) { return table[static_cast<std::size_t>(id)]; }

std::span<const http::RouteLabel> route_labels() { return labels; }

const http::RouteLabel& route_label(RouteId id) { return labels[static_cast<std::size_t>(id)]; }

Match match(Method method, std::string_view path) {
  Match result;
  const auto segments = split_path(path);
  if (!segments) return result;
  unsigned path_methods = 0;
  for (const Route& route : table) {
    const Segments& pattern = patterns[static_cast<std::size_t>(route.id)];
    if (!matches(pattern, *segments)) continue;
    result.needs_key = route.needs_key;
    if (!serves(route, method)) {
      path_methods |= method_bit(route.method);
      continue;
    }
    result.kind = MatchKind::found;
    result.route = route.id;
    take_parameters(pattern, *segments, result);
    if (!result.id.empty() && !is_uuid(result.id)) {
      result.malformed_param = "id";
    } else if (!result.variant_id.empty() && !is_uuid(result.variant_id)) {
      result.malformed_param = "variant_id";
    }
    return result;
  }
  if (path_methods != 0) {
    result.kind = method == Method::options ? MatchKind::options : MatchKind::method_not_allowed;
    result.allow = allow_values[path_methods];
  }
  return result;
}

}  // namespace storeapi::api
