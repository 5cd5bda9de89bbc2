// http::Request::first_headers: several headers read in one pass, each its first
// occurrence, names compared in ASCII case-insensitively, as Request::header does.
#include "http/request.hpp"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace storeapi::http {
namespace {

constexpr std::array<std::string_view, 3> kNames{"content-type", "idempotency-key", "authorization"};

std::array<std::optional<std::string_view>, 3> read_all(const std::vector<Header>* headers) {
  Request req;
  req.headers = headers;
  std::array<std::optional<std::string_view>, 3> values{"stale", "stale", "stale"};
  req.first_headers(kNames, values);
  return values;
}

TEST(FirstHeaders, EachNamesFirstValueInOnePass) {
  const std::vector<Header> headers{{"Authorization", "Bearer a"},
                                    {"X-Other", "x"},
                                    {"IDEMPOTENCY-KEY", "k-1"},
                                    {"idempotency-key", "k-2"},
                                    {"Authorization", "Bearer b"}};
  const auto values = read_all(&headers);
  EXPECT_EQ(values[0], std::nullopt);
  EXPECT_EQ(values[1], "k-1");
  EXPECT_EQ(values[2], "Bearer a");
}

TEST(FirstHeaders, AnEmptyValueIsPresentAndAMissingOneIsNot) {
  const std::vector<Header> headers{{"Content-Type", ""}};
  const auto values = read_all(&headers);
  EXPECT_EQ(values[0], "");
  EXPECT_EQ(values[1], std::nullopt);
  EXPECT_EQ(values[2], std::nullopt);
}

TEST(FirstHeaders, NoHeadersAtAllLeavesEveryValueAbsent) {
  const std::vector<Header> none;
  for (const auto& values : {read_all(nullptr), read_all(&none)}) {
    for (const auto& value : values) EXPECT_EQ(value, std::nullopt);
  }
}

// The same answer as Request::header, name by name.
TEST(FirstHeaders, AgreesWithTheOneNameLookup) {
  const std::vector<Header> headers{{"content-TYPE", "application/json"}, {"Content-Type", "text/plain"}};
  Request req;
  req.headers = &headers;
  const auto values = read_all(&headers);
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    bool found = false;
    const std::string_view one = req.header(kNames[i], &found);
    EXPECT_EQ(values[i].has_value(), found) << kNames[i];
    EXPECT_EQ(values[i].value_or(""), one) << kNames[i];
  }
}

}  // namespace
}  // namespace storeapi::http
