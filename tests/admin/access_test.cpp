#include "admin/stores/access.hpp"
#include "admin/base/errors.hpp"

#include <gtest/gtest.h>

using namespace storeapi::admin;

TEST(Access, ParsesPerResourceLevelsWithNoneForOmitted) {
  AccessLevels a = parse_access("products:write,orders:read");
  EXPECT_EQ(a[0], Level::read);    // orders
  EXPECT_EQ(a[1], Level::none);    // bookings
  EXPECT_EQ(a[2], Level::write);   // products
  EXPECT_EQ(a[3], Level::none);    // customers
  EXPECT_EQ(parse_access(""), AccessLevels{});
  EXPECT_EQ(parse_access("customers:none")[3], Level::none);
  for (const char* bad : {"orders", "orders:", "orders:admin", "stock:read", "orders:read,orders:write", "orders:read,"})
    EXPECT_THROW(parse_access(bad), UsageError) << bad;
}

TEST(Access, CustomScopesAreReadOrWriteOnly) {
  EXPECT_EQ(parse_custom_scopes("bookings:write")[1], Level::write);
  EXPECT_THROW(parse_custom_scopes(""), UsageError);
  EXPECT_THROW(parse_custom_scopes("orders:none"), UsageError);
}

TEST(Access, KeysGetScopesAsGrantedWithoutImpliedReads) {
  AccessLevels custom = parse_custom_scopes("customers:read,orders:write");
  EXPECT_EQ(scopes_of(key_levels("custom", custom)), (std::vector<std::string>{"orders:write", "customers:read"}));
  EXPECT_EQ(scopes_of(key_levels("read", custom)),
            (std::vector<std::string>{"orders:read", "bookings:read", "products:read", "customers:read"}));
  EXPECT_EQ(scopes_of(key_levels("full", {})),
            (std::vector<std::string>{"orders:write", "bookings:write", "products:write", "customers:write"}));
}

TEST(Access, FindsWhatACreatorCannotGrant) {
  AccessLevels held = parse_access("orders:write,products:read");
  EXPECT_EQ(first_exceeding(parse_access("orders:read"), held), "");
  EXPECT_EQ(first_exceeding(parse_access("orders:write,products:read"), held), "");
  EXPECT_EQ(first_exceeding(parse_access("products:write"), held), "products");
  EXPECT_EQ(first_exceeding(key_levels("read", {}), held), "bookings");
}
