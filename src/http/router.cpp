#include "http/router.hpp"

#include "common/uuid.hpp"

#include <algorithm>
#include <array>

namespace storeapi::http {
namespace {

constexpr std::array table{
    Route{RouteId::healthz, Method::get, "/healthz", false, std::nullopt},
    Route{RouteId::readyz, Method::get, "/readyz", false, std::nullopt},
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

// Walks `pattern` and `path` together; a `{name}` in the pattern takes one non-empty path
// segment into `match`'s parameter of that name.
bool matches(std::string_view pattern, std::string_view path, Match& match) {
  std::size_t p = 0, i = 0;
  while (p < pattern.size()) {
    if (pattern[p] != '{') {
      if (i == path.size() || path[i] != pattern[p]) return false;
      ++p;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', p);
    const std::string_view name = pattern.substr(p + 1, close - p - 1);
    const std::size_t end = std::min(path.find('/', i), path.size());
    if (end == i) return false;
    (name == "id" ? match.id : match.variant_id) = path.substr(i, end - i);
    p = close + 1;
    i = end;
  }
  return i == path.size();
}

bool serves(const Route& route, Method method) {
  return route.method == method || (method == Method::head && route.method == Method::get);
}

}  // namespace

std::span<const Route> routes() { return table; }

const Route& route(RouteId id) { return table[static_cast<std::size_t>(id)]; }

Match match(Method method, std::string_view path) {
  Match result;
  unsigned path_methods = 0;
  for (const Route& route : table) {
    Match candidate;
    if (!matches(route.pattern, path, candidate)) continue;
    result.needs_key = route.needs_key;
    if (!serves(route, method)) {
      path_methods |= method_bit(route.method);
      continue;
    }
    candidate.kind = MatchKind::found;
    candidate.route = route.id;
    candidate.needs_key = route.needs_key;
    if (!candidate.id.empty() && !is_uuid(candidate.id)) {
      candidate.malformed_param = "id";
    } else if (!candidate.variant_id.empty() && !is_uuid(candidate.variant_id)) {
      candidate.malformed_param = "variant_id";
    }
    return candidate;
  }
  if (path_methods != 0) {
    result.kind = method == Method::options ? MatchKind::options : MatchKind::method_not_allowed;
    result.allow = allow_values[path_methods];
  }
  return result;
}

}  // namespace storeapi::http
