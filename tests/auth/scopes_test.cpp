// Scope names and what a key's scopes allow (a `:write` scope includes its `:read`).
#include "auth/scopes.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

using namespace storeapi::auth;

TEST(Scopes, NamesRoundTrip) {
  std::vector<std::string_view> names;
  for (const Scope scope : all_scopes) {
    names.push_back(scope_name(scope));
    EXPECT_EQ(parse_scope(scope_name(scope)), scope);
  }
  EXPECT_EQ(names, (std::vector<std::string_view>{"orders:read", "orders:write", "bookings:read", "bookings:write",
                                                   "products:read", "products:write", "customers:read",
                                                   "customers:write"}));
  for (const char* bad : {"", "orders", "orders:", "orders:READ", "Orders:read", "orders:delete", " orders:read",
                          "orders:read ", "store:read"}) {
    EXPECT_EQ(parse_scope(bad), std::nullopt) << bad;
  }
}

TEST(Scopes, WriteImpliesReadOfTheSameResourceOnly) {
  for (const Scope granted : all_scopes) {
    ScopeSet set;
    set.add(granted);
    for (const Scope required : all_scopes) {
      const std::string_view g = scope_name(granted), r = scope_name(required);
      const std::string_view g_resource = g.substr(0, g.find(':')), r_resource = r.substr(0, r.find(':'));
      const bool expected = granted == required || (g_resource == r_resource && g.ends_with(":write"));
      EXPECT_EQ(scope_allows(set, required), expected) << g << " -> " << r;
    }
  }
}

TEST(Scopes, SetsAndNoScopeNeeded) {
  ScopeSet none;
  EXPECT_TRUE(scope_allows(none, std::nullopt));
  for (const Scope required : all_scopes) EXPECT_FALSE(scope_allows(none, required));

  ScopeSet set;
  set.add(Scope::orders_write);
  set.add(Scope::customers_read);
  EXPECT_TRUE(set.granted(Scope::orders_write));
  EXPECT_FALSE(set.granted(Scope::orders_read));  // as granted: implication is not stored
  EXPECT_TRUE(scope_allows(set, Scope::orders_read));
  EXPECT_TRUE(scope_allows(set, Scope::customers_read));
  EXPECT_FALSE(scope_allows(set, Scope::customers_write));
  EXPECT_FALSE(scope_allows(set, Scope::bookings_read));
  EXPECT_EQ(ScopeSet(set.bits()), set);
}
