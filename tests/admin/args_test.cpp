#include "admin/cli/args.hpp"
#include "admin/base/errors.hpp"
#include "admin/keys/expiry.hpp"

#include <gtest/gtest.h>

using namespace storeapi::admin;

namespace {

Flags parse(std::vector<std::string> args) {
  return Flags(args, FlagSpec{{"store"}, {"plan", "orders"}});
}

}  // namespace

TEST(Flags, TakesSpaceAndEqualsForms) {
  Flags f = parse({"--store", "s1", "--plan=pro"});
  EXPECT_EQ(f.get("store"), "s1");
  EXPECT_EQ(f.find("plan"), "pro");
  EXPECT_FALSE(f.find("orders").has_value());
  EXPECT_EQ(f.count_or("orders", 60), 60);
  EXPECT_EQ(parse({"--store", "s", "--orders", "100000"}).count_or("orders", 60), 100000);
  EXPECT_EQ(parse({"--store", "s", "--plan", "--odd"}).find("plan"), "--odd");  // a value may look like a flag
}

TEST(Flags, RejectsMalformedCommandLines) {
  EXPECT_THROW(parse({}), UsageError);                                   // missing --store
  EXPECT_THROW(parse({"--store"}), UsageError);                          // no value
  EXPECT_THROW(parse({"--store", "a", "--store", "b"}), UsageError);     // twice
  EXPECT_THROW(parse({"--store", "a", "--colour", "red"}), UsageError);  // unknown
  EXPECT_THROW(parse({"--store", "a", "stray"}), UsageError);            // positional
  EXPECT_THROW(parse({"--store", "a", "--orders", "1e3"}).count_or("orders", 0), UsageError);
  EXPECT_THROW(parse({"--store", "a", "--orders", "-1"}).count_or("orders", 0), UsageError);
  EXPECT_THROW(parse({"--store", "a", "--orders", ""}).count_or("orders", 0), UsageError);
}

TEST(Count, ParsesOnlyPlainNonNegativeIntegers) {
  EXPECT_EQ(parse_count("0"), 0);
  EXPECT_EQ(parse_count("42"), 42);
  EXPECT_FALSE(parse_count("+1").has_value());
  EXPECT_FALSE(parse_count(" 1").has_value());
  EXPECT_FALSE(parse_count("1x").has_value());
  EXPECT_FALSE(parse_count("99999999999999999999999").has_value());
}

TEST(Expiry, MapsChoicesToIntervalsOrTimes) {
  EXPECT_FALSE(parse_expiry("never").interval.has_value());
  EXPECT_FALSE(parse_expiry("never").at.has_value());
  EXPECT_EQ(parse_expiry("30d").interval, "30 days");
  EXPECT_EQ(parse_expiry("90d").interval, "90 days");
  EXPECT_EQ(parse_expiry("1y").interval, "1 year");
  EXPECT_EQ(parse_expiry("2026-01-02T03:04:05.6789-02:00").at, "2026-01-02T05:04:05.678Z");
  for (const char* bad : {"", "7d", "1Y", "forever", "2026-01-02", "2026-01-02T03:04:05"})
    EXPECT_THROW(parse_expiry(bad), UsageError) << bad;
}
