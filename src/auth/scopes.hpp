#pragma once
// API key scopes as a bitmask: what a key grants; the api layer's route table names the
// scope each route needs. A `:write` scope includes the matching `:read` (spec, "Scopes"),
// so a set stores scopes as granted and implication is applied when checking.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace storeapi::auth {

// Bit 2k is resource k's read scope, bit 2k+1 its write scope; scope_allows relies on it.
enum class Scope : std::uint8_t {
  orders_read,
  orders_write,
  bookings_read,
  bookings_write,
  products_read,
  products_write,
  customers_read,
  customers_write,
};

inline constexpr std::array<Scope, 8> all_scopes{
    Scope::orders_read,   Scope::orders_write,   Scope::bookings_read,  Scope::bookings_write,
    Scope::products_read, Scope::products_write, Scope::customers_read, Scope::customers_write,
};

class ScopeSet {
 public:
  constexpr ScopeSet() = default;
  constexpr explicit ScopeSet(std::uint8_t bits) : bits_(bits) {}

  constexpr void add(Scope scope) { bits_ |= bit(scope); }
  // Whether `scope` was granted as such (implication not applied): what api_key.scopes lists.
  constexpr bool granted(Scope scope) const { return (bits_ & bit(scope)) != 0; }
  constexpr std::uint8_t bits() const { return bits_; }
  friend constexpr bool operator==(ScopeSet, ScopeSet) = default;

 private:
  static constexpr std::uint8_t bit(Scope scope) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(scope)); }
  std::uint8_t bits_ = 0;
};

// Whether a key holding `granted` may call an endpoint needing `required` (nullopt: no scope
// needed, e.g. GET /v1/store).
bool scope_allows(ScopeSet granted, std::optional<Scope> required);

// "orders:read" and so on; anything else is nullopt.
std::optional<Scope> parse_scope(std::string_view name);
std::string_view scope_name(Scope scope);

}  // namespace storeapi::auth
