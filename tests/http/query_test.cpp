#include "http/query.hpp"

#include "support/allocations.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

using namespace storeapi::http;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs pairs(const Query& query) {
  Pairs out;
  for (const auto& p : query.params()) out.emplace_back(p.name, p.value);
  return out;
}

class QueryTest : public ::testing::Test {
 protected:
  Query query;

  Pairs parsed(std::string_view raw) {
    const QueryResult parsed = query.parse(raw);
    EXPECT_TRUE(parsed.ok()) << raw << ": " << parsed.message;
    return pairs(query);
  }
  void expect_error(std::string_view raw, std::optional<std::string_view> param) {
    const QueryResult parsed = query.parse(raw);
    ASSERT_EQ(parsed.status, QueryStatus::invalid) << raw;
    EXPECT_EQ(parsed.param, param) << raw;
    EXPECT_FALSE(parsed.message.empty());
  }
};

}  // namespace

TEST(Target, SplitsAtTheFirstQuestionMark) {
  EXPECT_EQ(split_target("/v1/orders").path, "/v1/orders");
  EXPECT_EQ(split_target("/v1/orders").query, "");
  EXPECT_EQ(split_target("/v1/orders?limit=5").path, "/v1/orders");
  EXPECT_EQ(split_target("/v1/orders?limit=5").query, "limit=5");
  EXPECT_EQ(split_target("/v1/orders?").query, "");
  EXPECT_EQ(split_target("/v1/orders?a=?b").query, "a=?b");
}

TEST_F(QueryTest, NoQueryHasNoParameters) {
  EXPECT_EQ(parsed(""), Pairs{});
  EXPECT_EQ(query.find("limit"), std::nullopt);
}

TEST_F(QueryTest, SplitsPairsInOrder) {
  EXPECT_EQ(parsed("limit=5&order=asc&status=pending"),
            (Pairs{{"limit", "5"}, {"order", "asc"}, {"status", "pending"}}));
  EXPECT_EQ(query.find("order"), "asc");
  EXPECT_EQ(query.find("Order"), std::nullopt);  // names are case-sensitive
}

TEST_F(QueryTest, PlainQueriesPointIntoTheInput) {
  const std::string raw = "limit=5&cursor=abc";
  parsed(raw);
  EXPECT_EQ(query.params()[1].value.data(), raw.data() + 15);
}

TEST_F(QueryTest, EmptyValuesArePresent) {
  EXPECT_EQ(parsed("limit=&cursor"), (Pairs{{"limit", ""}, {"cursor", ""}}));
  EXPECT_EQ(query.find("limit"), "");
  EXPECT_EQ(query.find("cursor"), "");
}

TEST_F(QueryTest, EmptyPiecesAreSkipped) {
  EXPECT_EQ(parsed("&limit=5&&order=asc&"), (Pairs{{"limit", "5"}, {"order", "asc"}}));
  EXPECT_EQ(parsed("&"), Pairs{});
}

TEST_F(QueryTest, OnlyTheFirstEqualsSignSplits) {
  EXPECT_EQ(parsed("cursor=YWJj==&x=a=b"), (Pairs{{"cursor", "YWJj=="}, {"x", "a=b"}}));
  EXPECT_EQ(parsed("=5"), (Pairs{{"", "5"}}));  // the endpoint reports an unknown, empty name
}

TEST_F(QueryTest, PlusIsALiteralPlus) {
  EXPECT_EQ(parsed("email=a+b@example.com&created_after=2026-01-01T00:00:00+01:00"),
            (Pairs{{"email", "a+b@example.com"}, {"created_after", "2026-01-01T00:00:00+01:00"}}));
}

TEST_F(QueryTest, DecodesPercentEscapesInNamesAndValues) {
  EXPECT_EQ(parsed("email=a%2Bb%40example.com&created%5fafter=2026-01-01T00%3A00%3A00Z&sku=%20x%20"),
            (Pairs{{"email", "a+b@example.com"}, {"created_after", "2026-01-01T00:00:00Z"}, {"sku", " x "}}));
  EXPECT_EQ(parsed("name=caf%C3%A9&amp=%26%3d"), (Pairs{{"name", "caf\xC3\xA9"}, {"amp", "&="}}));
  EXPECT_EQ(parsed("pct=%2541"), (Pairs{{"pct", "%41"}}));  // decoded once only
}

TEST_F(QueryTest, ViewsStayValidAcrossManyEscapedParameters) {
  std::string raw;
  Pairs expected;
  for (int i = 0; i < 20; ++i) {
    const std::string n = std::to_string(i);
    raw += "k%5F" + n + "=v%20" + n + "&";
    expected.emplace_back("k_" + n, "v " + n);
  }
  EXPECT_EQ(parsed(raw), expected);
}

TEST_F(QueryTest, MalformedEscapesNameTheParameter) {
  expect_error("limit=5%", "limit");
  expect_error("limit=5%2", "limit");
  expect_error("limit=%zz", "limit");
  expect_error("limit=%2g&order=asc", "limit");
  for (const char* raw : {"limit=%+5", "limit=%-5", "limit=% 5", "limit=%0x", "limit=%x1"}) expect_error(raw, "limit");
  expect_error("order=asc&sku=%", "sku");
  expect_error("li%mit=5", "li%mit");  // a name that cannot be decoded is named as sent
}

TEST_F(QueryTest, DecodedBytesMustBeUtf8WithoutNul) {
  expect_error("email=%FF", "email");
  expect_error("email=%C3", "email");
  expect_error("email=%ED%A0%80", "email");     // a surrogate
  expect_error("email=%C0%AF", "email");        // overlong
  expect_error("sku=a%00b", "sku");
  expect_error("sku=\xFF", "sku");              // raw bytes are checked too
  expect_error("limit=5&sku=caf\xC3\xA9&email=\xC3", "email");
  EXPECT_EQ(parsed("sku=caf\xC3\xA9&limit=5"), (Pairs{{"sku", "caf\xC3\xA9"}, {"limit", "5"}}));
  expect_error("%FF=1", "\xFF");
}

TEST_F(QueryTest, RepeatedParameterIsNamed) {
  expect_error("limit=5&limit=5", "limit");
  expect_error("limit=5&order=asc&lim%69t=6", "limit");  // the same name once decoded
  expect_error("status=&status=", "status");
}

TEST_F(QueryTest, FirstProblemFromTheLeftIsReported) {
  expect_error("a=%&a=1&a=2", "a");
  expect_error("b=1&b=2&c=%", "b");
  expect_error("c=%&b=1&b=2", "c");
}

TEST_F(QueryTest, TooManyParameters) {
  std::string raw;
  for (std::size_t i = 0; i < Query::max_params; ++i) raw.append("p").append(std::to_string(i)).append("=1&");
  EXPECT_EQ(parsed(raw).size(), Query::max_params);
  expect_error(raw + "one_more=1", std::nullopt);
}

TEST_F(QueryTest, ReuseForgetsThePreviousQuery) {
  parsed("a=%41&b=2");
  EXPECT_EQ(parsed("c=3"), (Pairs{{"c", "3"}}));
  EXPECT_EQ(query.find("a"), std::nullopt);
  expect_error("x=%", "x");
  EXPECT_EQ(parsed(""), Pairs{});
}

TEST_F(QueryTest, AllocatesNothingOnceWarm) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  const auto parse_all = [&] {
    EXPECT_TRUE(query.parse("limit=50&order=asc&updated_after=2026-11-21T20:39:02.123Z").ok());
    EXPECT_TRUE(query.parse("email=a%2Bb%40example.com&created_after=2026-11-21T20%3A39%3A02%2B01%3A00").ok());
    EXPECT_FALSE(query.parse("limit=1&limit=2").ok());
  };
  EXPECT_GT(storeapi::testing::allocations_during(parse_all), 0u);  // cold: the buffers grow
  EXPECT_EQ(storeapi::testing::allocations_during(parse_all), 0u);
}
