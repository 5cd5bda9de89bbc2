#include "api/writes/idempotency.hpp"
#include "api/writes/write_statements.hpp"


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
  return fingerprint(t.get(), ValidatedBody{kFields, values});
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

TEST(IdempotencyKeyHeader, AbsentValidOrInvalidAndOnlyAValidKeyIsFingerprinted) {
  TestRequest t;
  t.body = R"({"mode":"adjust","quantity":-1})";
  EXPECT_EQ(read_idempotency_key(std::nullopt, t.get(), std::nullopt).state, IdempotencyKey::State::absent);
  EXPECT_EQ(read_idempotency_key(std::nullopt, t.get(), std::nullopt).fingerprint, "");
  IdempotencyKey key = read_idempotency_key("k-1", t.get(), std::nullopt);
  EXPECT_EQ(key.state, IdempotencyKey::State::valid);
  EXPECT_EQ(key.text, "k-1");
  EXPECT_EQ(key.fingerprint, fingerprint(t.get(), std::nullopt));
  EXPECT_EQ(read_idempotency_key("", t.get(), std::nullopt).state, IdempotencyKey::State::invalid);
  EXPECT_EQ(read_idempotency_key("", t.get(), std::nullopt).fingerprint, "");
}

TEST(IdempotencyKeyHeader, AValidKeyIsBoundToTheValidatedBodyWhenThereIsOne) {
  TestRequest t;
  const std::string validated = canonical(t, R"({"quantity":-1,"mode":"adjust"})");
  json::BodyParser parser;
  std::array<json::FieldValue, 3> values;
  json::BodyTexts texts;
  ASSERT_FALSE(parser.parse(t.body, kFields, values, texts));
  EXPECT_EQ(read_idempotency_key("k-1", t.get(), ValidatedBody{kFields, values}).fingerprint, validated);
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

// The one fingerprint's contract, on the cases its two forms (a validated body, the raw
// bytes of a rejected one) differ on.
TEST(Fingerprint, TheSameRequestHasTheSameFingerprintInEitherForm) {
  TestRequest t;
  const std::string body = R"({"mode":"adjust","quantity":-1})";
  EXPECT_EQ(canonical(t, body), canonical(t, body));
  t.body = "{not json";
  EXPECT_EQ(fingerprint(t.get(), std::nullopt), fingerprint(t.get(), std::nullopt));
}

TEST(Fingerprint, RawBodiesDifferFromValidatedOnesAndFromEachOther) {
  TestRequest t;
  const std::string body = R"({"mode":"adjust","quantity":-1})";
  const std::string validated = canonical(t, body);
  EXPECT_NE(fingerprint(t.get(), std::nullopt), validated);
  const std::string raw = fingerprint(t.get(), std::nullopt);
  // Raw bytes are compared as sent: whitespace a validated body ignores counts here.
  t.body = R"({"mode":"adjust", "quantity":-1})";
  EXPECT_NE(fingerprint(t.get(), std::nullopt), raw);
  EXPECT_EQ(canonical(t, t.body), validated);
  // Another path is another request in the raw form too.
  t.path = "/v1/products/p/variants/w/stock";
  EXPECT_NE(fingerprint(t.get(), std::nullopt), raw);
}

// Keys live 24 hours and outlast a release: a retry answered by the next release's server
// matches only if the text hashed is the same, byte for byte.
TEST(Fingerprint, TheTextHashedIsStableAcrossReleases) {
  TestRequest t;
  EXPECT_EQ(canonical(t, R"({"mode":"adjust","quantity":-1})"),
            "9080f0b539602b33c805ab77ca98f59a21a0d1c26d163f1ce752e8d6fde39410");
  t.body = R"({"mode":1})";
  EXPECT_EQ(fingerprint(t.get(), std::nullopt), "301bf1adf41928ef7bef9939e13bf3c78c520ffe95e2e0b7aba81714fad8ca85");
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
