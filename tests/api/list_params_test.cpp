#include "api/lists/list_params.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/allocations.hpp"

using namespace storeapi;
using namespace storeapi::api;

namespace {

constexpr std::string_view kStatuses[] = {"pending", "draft"};
constexpr FilterSpec kFilters[] = {
    {"status", FilterRule::one_of, kStatuses, "", false},
    {"sku", FilterRule::sku, {}, "", true},
    {"email", FilterRule::email, {}, "", false},
};
constexpr ListSpec kList{api::RouteId::orders_list, true, kFilters};
constexpr ListSpec kBookingsLike{api::RouteId::bookings_list, false, std::span<const FilterSpec>(kFilters, 1)};

const Uuid kStore = *Uuid::parse("7c9e6679-7425-40de-944b-e07fc1f90ae7");
constexpr std::string_view kSecret = "secret";

struct Parsed {
  Checked checked = Checked::passed();
  ListParams params;
};

class ListParamsTest : public ::testing::Test {
 protected:
  Parsed parse(std::string_view raw, const ListSpec& spec = kList) {
    Parsed out;
    out.checked = parse_list_params(query_, raw, spec, kStore, kSecret, out.params);
    return out;
  }

  // The error's code and param, e.g. "parameter_invalid limit".
  std::string error(std::string_view raw, const ListSpec& spec = kList) {
    const Parsed p = parse(raw, spec);
    if (p.checked.ok()) return "ok";
    return std::string(error_info(p.checked.code()).name) + " " + std::string(p.checked.param().value_or("null"));
  }

  // A cursor at `at` issued for the list and parameters of `raw`.
  std::string cursor_for(std::string_view raw, const CursorPosition& at, const ListSpec& spec = kList) {
    const Parsed p = parse(raw, spec);
    std::string out(kCursorLength, '\0');
    encode_cursor(kSecret, p.params.binding, at, out.data());
    return out;
  }

  http::Query query_;
};

const CursorPosition kAt{*timefmt::parse_rfc3339("2026-10-31T22:36:51.994Z"),
                         *Uuid::parse("1d47a987-6768-4250-ad85-f79b3b5b6f18")};

}  // namespace

TEST_F(ListParamsTest, DefaultsWithoutParameters) {
  const Parsed p = parse("");
  ASSERT_TRUE(p.checked.ok());
  EXPECT_EQ(p.params.limit, 25);
  EXPECT_FALSE(p.params.ascending);
  EXPECT_FALSE(p.params.cursor);
  EXPECT_FALSE(p.params.created_after || p.params.created_before || p.params.updated_after || p.params.updated_before);
  for (const auto& filter : p.params.filters) EXPECT_FALSE(filter);
}

TEST_F(ListParamsTest, LimitIsAPlainIntegerFromOneToOneHundred) {
  EXPECT_EQ(parse("limit=1").params.limit, 1);
  EXPECT_EQ(parse("limit=100").params.limit, 100);
  EXPECT_EQ(parse("limit=37").params.limit, 37);
  for (const char* bad : {"limit=", "limit", "limit=0", "limit=101", "limit=007", "limit=+5", "limit=-1", "limit=1.0",
                          "limit=1e2", "limit=%201", "limit=99999999999999999999", "limit=ten"}) {
    EXPECT_EQ(error(bad), "parameter_invalid limit") << bad;
  }
}

TEST_F(ListParamsTest, OrderIsAscOrDesc) {
  EXPECT_TRUE(parse("order=asc").params.ascending);
  EXPECT_FALSE(parse("order=desc").params.ascending);
  for (const char* bad : {"order=", "order=ASC", "order=up", "order=asc%20"}) {
    EXPECT_EQ(error(bad), "parameter_invalid order") << bad;
  }
}

TEST_F(ListParamsTest, TimesAreRfc3339WithZoneToTheMicrosecond) {
  const Parsed p = parse("created_after=2026-01-01T00:00:00Z&created_before=2026-01-01T01:00:00.5+01:00"
                         "&updated_after=2026-01-01T00:00:00.1234567Z&updated_before=2026-01-02T00:00:00z");
  ASSERT_TRUE(p.checked.ok());
  EXPECT_EQ(p.params.created_after, timefmt::parse_rfc3339("2026-01-01T00:00:00Z"));
  EXPECT_EQ(p.params.created_before, timefmt::parse_rfc3339("2026-01-01T00:00:00.5Z"));
  EXPECT_EQ(p.params.updated_after, *timefmt::parse_rfc3339("2026-01-01T00:00:00Z") + 123'456);
  EXPECT_EQ(p.params.updated_before, timefmt::parse_rfc3339("2026-01-02T00:00:00Z"));
  for (const char* name : {"created_after", "created_before", "updated_after", "updated_before"}) {
    for (const char* bad : {"", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "yesterday", "1767225600"}) {
      EXPECT_EQ(error(std::string(name) + "=" + bad), "parameter_invalid " + std::string(name)) << bad;
    }
  }
}

TEST_F(ListParamsTest, FiltersFollowTheirRules) {
  const Parsed p = parse("status=draft&sku=PHY-24-1&email=A+b@Example.com");
  ASSERT_TRUE(p.checked.ok());
  EXPECT_EQ(p.params.filters[0], "draft");
  EXPECT_EQ(p.params.filters[1], "PHY-24-1");
  EXPECT_EQ(p.params.filters[2], "A+b@Example.com");  // '+' is a plus (docs/DECISIONS.md)
  EXPECT_EQ(error("status=DRAFT"), "parameter_invalid status");
  EXPECT_EQ(error("status="), "parameter_invalid status");
  EXPECT_EQ(error("sku="), "parameter_invalid sku");
  EXPECT_EQ(error("sku=" + std::string(100, 'x')), "ok");
  EXPECT_EQ(error("sku=" + std::string(101, 'x')), "parameter_invalid sku");
  std::string euros;  // 100 characters, 300 bytes
  for (int i = 0; i < 100; ++i) euros += "%E2%82%AC";
  EXPECT_EQ(error("sku=" + euros), "ok");
  EXPECT_EQ(error("email=not-an-address"), "parameter_invalid email");
  EXPECT_EQ(error("email="), "parameter_invalid email");
}

// A list endpoint keeps its filters across its database round trip while other requests
// of the core parse their own query strings: the decoded values live in the parser the
// request owns (api/lists/page.cpp), which no other request touches.
TEST_F(ListParamsTest, FiltersLastWhileAnotherRequestParses) {
  const Parsed mine = parse("status=draft&email=a%2Bb%40example.com");
  ASSERT_TRUE(mine.checked.ok());
  http::Query others;
  ListParams theirs;
  ASSERT_TRUE(parse_list_params(others, "status=pending&email=c%40example.org", kList, kStore, kSecret, theirs).ok());
  EXPECT_EQ(mine.params.filters[0], "draft");
  EXPECT_EQ(mine.params.filters[2], "a+b@example.com");
  EXPECT_EQ(theirs.filters[2], "c@example.org");
}

TEST_F(ListParamsTest, UpdatedBoundsOnlyWhereTheListTakesThem) {
  EXPECT_EQ(error("updated_after=2026-01-01T00:00:00Z", kBookingsLike), "parameter_unknown updated_after");
  EXPECT_EQ(error("updated_before=2026-01-01T00:00:00Z", kBookingsLike), "parameter_unknown updated_before");
  EXPECT_EQ(error("sku=x", kBookingsLike), "parameter_unknown sku");
  EXPECT_EQ(error("status=pending&created_after=2026-01-01T00:00:00Z", kBookingsLike), "ok");
}

TEST_F(ListParamsTest, UnknownBeforeInvalidThenLeftToRight) {
  EXPECT_EQ(error("limit=0&foo=1&bar=2"), "parameter_unknown foo");
  EXPECT_EQ(error("Limit=5"), "parameter_unknown Limit");
  EXPECT_EQ(error("order=sideways&limit=0"), "parameter_invalid order");
  EXPECT_EQ(error("limit=0&order=sideways"), "parameter_invalid limit");
  EXPECT_EQ(error("limit=0&cursor=" + std::string(501, 'A')), "parameter_invalid limit");
  EXPECT_EQ(error("cursor=" + std::string(501, 'A') + "&limit=0"), "invalid_cursor cursor");
  // The query string's own problems come first of all.
  EXPECT_EQ(error("foo=1&limit=1&limit=2"), "parameter_invalid limit");
  EXPECT_EQ(error("foo=%zz"), "parameter_invalid foo");
}

TEST_F(ListParamsTest, AcceptsItsOwnCursorAndAnyLimit) {
  const std::string cursor = cursor_for("status=draft&order=asc&limit=7", kAt);
  const Parsed p = parse("limit=100&order=asc&status=draft&cursor=" + cursor);
  ASSERT_TRUE(p.checked.ok());
  EXPECT_EQ(p.params.cursor, kAt);
  EXPECT_EQ(p.params.limit, 100);
}

TEST_F(ListParamsTest, RefusesCursorsOfOtherParametersListsOrSecrets) {
  const std::string cursor = cursor_for("status=draft&created_after=2026-01-01T00:00:00Z", kAt);
  EXPECT_EQ(error("status=draft&created_after=2026-01-01T00:00:00Z&cursor=" + cursor), "ok");
  // The same instant written another way is the same parameter.
  EXPECT_EQ(error("status=draft&created_after=2026-01-01T01:00:00%2B01:00&cursor=" + cursor), "ok");
  for (const char* other : {"status=pending", "status=draft&order=asc", "status=draft&created_after=2026-01-02T00:00:00Z",
                            "status=draft", "status=draft&created_after=2026-01-01T00:00:00Z&sku=a",
                            "status=draft&created_after=2026-01-01T00:00:00Z&updated_before=2026-01-01T00:00:00Z"}) {
    EXPECT_EQ(error(std::string(other) + "&cursor=" + cursor), "invalid_cursor cursor") << other;
  }
  const std::string bookings_cursor = cursor_for("", kAt, kBookingsLike);
  EXPECT_EQ(error("cursor=" + bookings_cursor), "invalid_cursor cursor");
  EXPECT_EQ(error("cursor="), "invalid_cursor cursor");
  EXPECT_EQ(error("cursor=" + std::string(500, 'A')), "invalid_cursor cursor");
}

TEST_F(ListParamsTest, ParsingAllocatesNothingOnceWarm) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  const std::string raw = "limit=50&order=asc&status=draft&sku=A%2DB&created_after=2026-01-01T00:00:00Z&cursor=" +
                          cursor_for("order=asc&status=draft&sku=A-B&created_after=2026-01-01T00:00:00Z", kAt);
  const auto parse_all = [&] {
    ListParams params;
    ASSERT_TRUE(parse_list_params(query_, raw, kList, kStore, kSecret, params).ok());
  };
  parse_all();
  EXPECT_EQ(storeapi::testing::allocations_during(parse_all), 0u);
}
