#include "common/time.hpp"
#include "common/uuid.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace storeapi;
using namespace storeapi::timefmt;

TEST(Uuid, ParsesCanonicalFormsAndPrintsLowerCase) {
  auto u = Uuid::parse("123E4567-e89b-12d3-a456-426614174000");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->str(), "123e4567-e89b-12d3-a456-426614174000");
  EXPECT_EQ(u->bytes[0], 0x12);
  EXPECT_EQ(u->bytes[15], 0x00);
}

TEST(Uuid, RejectsEverythingElse) {
  for (const char* bad : {"", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400",
                          "123e4567-e89b-12d3-a456-4266141740000", "123e4567-e89b-12d3-a456_426614174000",
                          "g23e4567-e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-42661417400}"}) {
    EXPECT_FALSE(is_uuid(bad)) << bad;
  }
}

TEST(Time, ParsesRfc3339WithOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:01.5Z"), 1'500'000);
  EXPECT_EQ(parse_rfc3339("1970-01-01t00:00:00.123456789z"), 123'456);
  EXPECT_EQ(parse_rfc3339("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(parse_rfc3339("1969-12-31T23:00:00-01:00"), 0);
  EXPECT_EQ(parse_rfc3339("2026-11-21T20:39:02.123Z"), 1795293542123000);
}

TEST(Time, RejectsMalformedRfc3339) {
  for (const char* bad : {"", "2026-11-21", "2026-11-21T20:39:02", "2026-11-21 20:39:02Z",
                          "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-21T24:00:00Z",
                          "2026-11-21T20:39:02.Z", "2026-11-21T20:39:02+0100", "2026-11-21T20:39:02Zx",
                          "2026-11-21T20:39:02+01:00 ", "20261-11-21T20:39:02Z", "2026-11-21T20:60:00Z"}) {
    EXPECT_FALSE(parse_rfc3339(bad).has_value()) << bad;
  }
}

TEST(Time, FormatsMillisecondsUtc) {
  EXPECT_EQ(format_ms_utc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_ms_utc(1795293542123999), "2026-11-21T20:39:02.123Z");
  EXPECT_EQ(format_ms_utc(-1), "1969-12-31T23:59:59.999Z");
}

TEST(Time, ParsesPostgresUtcOutput) {
  EXPECT_EQ(parse_pg_timestamptz("2026-11-21 20:39:02.123+00"), 1795293542123000);
  EXPECT_EQ(parse_pg_timestamptz("2026-11-21 20:39:02+00"), 1795293542000000);
  EXPECT_FALSE(parse_pg_timestamptz("2026-11-21 20:39:02+01").has_value());
}

TEST(Time, RoundTripsThroughFormatAndParse) {
  for (Micros t = -86'400'000'000LL * 400; t < 86'400'000'000LL * 40000; t += 7'777'777'777'000LL) {
    auto text = format_ms_utc(t);
    EXPECT_EQ(parse_rfc3339(text), t - (((t % 1000) + 1000) % 1000)) << text;
  }
}

TEST(Time, FormatsPostgresInputWithEveryMicrosecond) {
  char out[kPgTimestampMax];
  const auto text = [&out](Micros t) { return std::string(out, format_pg_utc(t, out)); };
  EXPECT_EQ(text(0), "1970-01-01 00:00:00.000000+00");
  EXPECT_EQ(text(*parse_rfc3339("2026-11-21T20:39:02.123456Z")), "2026-11-21 20:39:02.123456+00");
  EXPECT_EQ(text(-1), "1969-12-31 23:59:59.999999+00");
  // The extremes parse_rfc3339 can give: year 0 is 1 BC, and an offset can cross a year.
  EXPECT_EQ(text(*parse_rfc3339("0000-01-01T00:00:00Z")), "0001-01-01 00:00:00.000000+00 BC");
  EXPECT_EQ(text(*parse_rfc3339("0000-01-01T00:00:00+01:00")), "0002-12-31 23:00:00.000000+00 BC");
  EXPECT_EQ(text(*parse_rfc3339("9999-12-31T23:59:59.999999-23:59")), "10000-01-01 23:58:59.999999+00");
}
