#include "auth/scopes.hpp"

namespace storeapi::auth {
namespace {

// Indexed by Scope.
constexpr std::array<std::string_view, all_scopes.size()> names{
    "orders:read",   "orders:write",   "bookings:read",  "bookings:write",
    "products:read", "products:write", "customers:read", "customers:write",
};

}  // namespace

bool scope_allows(ScopeSet granted, std::optional<Scope> required) {
  if (!required) return true;
  // Each write bit also grants the read bit just below it.
  constexpr unsigned write_bits = 0b1010'1010;
  const unsigned bits = granted.bits();
  return ScopeSet(static_cast<std::uint8_t>(bits | (bits & write_bits) >> 1)).granted(*required);
}

std::optional<Scope> parse_scope(std::string_view name) {
  for (const Scope scope : all_scopes) {
    if (scope_name(scope) == name) return scope;
  }
  return std::nullopt;
}

std::string_view scope_name(Scope scope) { return names[static_cast<std::size_t>(scope)]; }

}  // namespace storeapi::auth
