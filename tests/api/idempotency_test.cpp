#include "api/writes/idempotency.hpp"


#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <vector>

using namespace storeapi;
using namespace storeapi::api;

namespace {

constexpr json::Field kFields[] = {
    {"mode", json::FieldType::string, true},
    {"quantity", json::FieldType::int32, true},
    {"note", json::FieldType::string_or_null},
};

// A request as the HTTP layer hands it over (views into strings the test owns).
struct TestRequest {
  std::string method = "POST";
  std::string path = "/v1/products/p/variants/v/stock";
  std::string body;
  std::vector<http::Header> headers;
  http::Request req;

  http::Request& get() {
    req.method_text = method;
    req.path = path;
    req.body = body;
    req.headers = &headers;
    return req;
  }
};

std::string canonical(TestRequest& t, std::string_view body) {
  t.body = body;
  json::BodyParser parser;
  std::array<json::FieldValue, 3> values;
  json::BodyTexts texts;
  EXPECT_FALSE(parser.parse(t.body, kFields, values, texts)) << body;
  return fingerprint(t.get(), kFields, values);
}

}  // namespace

TEST(IdempotencyKeyFormat, OneTo255PrintableAsciiCharacters) {
  EXPECT_TRUE(is_valid_idempotency_key("a"));
  EXPECT_TRUE(is_valid_idempotency_key("order 42 / retry #1 ~"));
  EXPECT_TRUE(is_valid_idempotency_key(std::string(255, 'k')));
  EXPECT_FALSE(is_valid_idempotency_key(""));
  EXPECT_FALSE(is_valid_idempotency_key(std::string(256, 'k')));
  EXPECT_FALSE(is_valid_idempotency_key("caf\xC3\xA9"));
  EXPECT_FALSE(is_valid_idempotency_key("tab\there"));
  EXPECT_FALSE(is_valid_idempotency_key(std::string_view("nul\0", 4)));
  EXPECT_FALSE(is_valid_idempotency_key("del\x7f"));  // the one control character above '~'
}

TEST(IdempotencyKeyHeader, AbsentValidOrInvalid) {
  TestRequest t;
  EXPECT_EQ(read_idempotency_key(t.get()).state, IdempotencyKey::State::absent);
  t.headers = {{"Idempotency-Key", "k-1"}};
  IdempotencyKey key = read_idempotency_key(t.get());
  EXPECT_EQ(key.state, IdempotencyKey::State::valid);
  EXPECT_EQ(key.text, "k-1");
  t.headers = {{"idempotency-key", ""}};
  EXPECT_EQ(read_idempotency_key(t.get()).state, IdempotencyKey::State::invalid);
}

TEST(Fingerprint, IgnoresMemberOrderAndWhitespace) {
  TestRequest t;
  std::string a = canonical(t, R"({"mode":"adjust","quantity":-1,"note":"x"})");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, canonical(t, R"({ "note" : "x", "quantity" : -1, "mode" : "adjust" })"));
  EXPECT_EQ(a, canonical(t, "{\"quantity\":-1,\n\"mode\":\"adjust\",\"note\":\"\\u0078\"}"));
}

TEST(Fingerprint, TellsRequestsApart) {
  TestRequest t;
  std::set<std::string> seen;
  for (const char* body : {R"({"mode":"adjust","quantity":-1})", R"({"mode":"adjust","quantity":1})",
                           R"({"mode":"set","quantity":-1})", R"({"mode":"adjust","quantity":-1,"note":null})",
                           R"({"mode":"adjust","quantity":-1,"note":""})",
                           R"({"mode":"adjust","quantity":-1,"note":"x"})"}) {
    EXPECT_TRUE(seen.insert(canonical(t, body)).second) << body;
  }
  // Another path (other ids) or method is another request, with the same body.
  const std::string body = R"({"mode":"adjust","quantity":-1})";
  const std::string here = canonical(t, body);
  t.path = "/v1/products/p/variants/w/stock";
  EXPECT_NE(canonical(t, body), here);
  t.path = "/v1/products/p/variants/v/stock";
  t.method = "PATCH";
  EXPECT_NE(canonical(t, body), here);
}

TEST(Fingerprint, RawBodiesDifferFromValidatedOnesAndFromEachOther) {
  TestRequest t;
  const std::string body = R"({"mode":"adjust","quantity":-1})";
  const std::string validated = canonical(t, body);
  EXPECT_NE(raw_fingerprint(t.get()), validated);
  const std::string raw = raw_fingerprint(t.get());
  t.body = R"({"mode":"adjust", "quantity":-1})";
  EXPECT_NE(raw_fingerprint(t.get()), raw);
}

TEST(KeyOutcome, ReadsEachOutcomeTheStatementsAnswerAndNothingElse) {
  EXPECT_EQ(parse_key_outcome("run"), KeyOutcome::run);
  EXPECT_EQ(parse_key_outcome("replay"), KeyOutcome::replay);
  EXPECT_EQ(parse_key_outcome("mismatch"), KeyOutcome::mismatch);
  EXPECT_EQ(parse_key_outcome("in_progress"), KeyOutcome::in_progress);
  EXPECT_EQ(parse_key_outcome(""), std::nullopt);
  EXPECT_EQ(parse_key_outcome("Run"), std::nullopt);
  EXPECT_EQ(parse_key_outcome("released"), std::nullopt);
}
