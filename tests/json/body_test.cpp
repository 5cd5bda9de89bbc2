#include "json/big_numbers.hpp"
#include "json/body.hpp"

#include "support/allocations.hpp"

#include <simdjson.h>

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

using namespace storeapi::json;

namespace {

// The fields of PATCH /products/{id}/variants/{variant_id} and of the stock endpoint.
constexpr std::array<Field, 3> variant_fields{{
    {"price", FieldType::string},
    {"discount_type", FieldType::string_or_null},
    {"discount_value", FieldType::string},
}};
constexpr std::array<Field, 4> stock_fields{{
    {"mode", FieldType::string, true},
    {"quantity", FieldType::int32, true},
    {"note", FieldType::string},
    {"sequence", FieldType::int64},  // an int64 field, for range tests
}};

class Body : public ::testing::Test {
 protected:
  BodyParser parser;
  std::array<FieldValue, 3> variant{};
  std::array<FieldValue, 4> stock{};
  BodyTexts texts;

  BodyResult patch(std::string_view body) { return parser.parse(body, variant_fields, variant, texts); }
  BodyResult post_stock(std::string_view body) { return parser.parse(body, stock_fields, stock, texts); }

  void expect_error(const BodyResult& error, BodyStatus status, std::optional<std::string_view> param,
                    std::string_view body) {
    ASSERT_FALSE(error.ok()) << body;
    EXPECT_EQ(error.status, status) << body;
    EXPECT_EQ(error.param, param) << body;
    EXPECT_FALSE(error.message.empty()) << body;
  }
  void expect_invalid_json(std::string_view body) {
    expect_error(patch(body), BodyStatus::invalid_json, std::nullopt, body);
  }
  void expect_stock_error(std::string_view body, BodyStatus status, std::string_view param) {
    expect_error(post_stock(body), status, param, body);
  }
  void expect_stock_quantity(std::string_view body, std::int64_t quantity) {
    ASSERT_TRUE(post_stock(body).ok()) << body;
    EXPECT_EQ(stock[1].number, quantity) << body;
  }
};

}  // namespace

TEST_F(Body, ExtractsDeclaredFields) {
  ASSERT_TRUE(patch(R"({"price":"149.00","discount_type":"percentage","discount_value":"10"})").ok());
  EXPECT_TRUE(variant[0].present);
  EXPECT_EQ(variant[0].text, "149.00");
  EXPECT_EQ(variant[1].text, "percentage");
  EXPECT_FALSE(variant[1].is_null);
  EXPECT_EQ(variant[2].text, "10");

  ASSERT_TRUE(post_stock(" {\n\"quantity\" : -3 , \"mode\":\"adjust\",\"note\":\"caf\\u00e9\\n\\\"x\\\"\"} ").ok());
  EXPECT_EQ(stock[0].text, "adjust");
  EXPECT_EQ(stock[1].number, -3);
  EXPECT_EQ(stock[2].text, "caf\xC3\xA9\n\"x\"");
  EXPECT_FALSE(stock[3].present);
}

TEST_F(Body, NullForNullableStringIsPresentAndNull) {
  ASSERT_TRUE(patch(R"({"discount_type":null})").ok());
  EXPECT_TRUE(variant[1].present);
  EXPECT_TRUE(variant[1].is_null);
  EXPECT_FALSE(variant[0].present);
}

TEST_F(Body, EmptyBodyCountsAsEmptyObject) {
  ASSERT_TRUE(patch("").ok());
  for (const auto& v : variant) EXPECT_FALSE(v.present);
  ASSERT_TRUE(patch("{}").ok());
  // With required fields, the first declared one is reported missing.
  expect_stock_error("", BodyStatus::parameter_missing, "mode");
}

TEST_F(Body, ValuesAreResetBetweenParses) {
  ASSERT_TRUE(patch(R"({"price":"1.00"})").ok());
  ASSERT_TRUE(patch(R"({"discount_value":"2.00"})").ok());
  EXPECT_FALSE(variant[0].present);
  EXPECT_EQ(variant[0].text, "");
  EXPECT_EQ(variant[2].text, "2.00");
}

TEST_F(Body, NotJsonIsInvalidJson) {
  for (const char* body : {" ", "\n", "{", "}", "{\"price\":}", "{\"price\" \"1\"}", "{'price':'1'}", "nope",
                           "{\"price\":\"1\",}", "{\"a\":tru}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}",
                           "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\t\"}", "{\"a\":\"\xC3\x28\"}",
                           "\xEF\xBB\xBF{}", "{\"a\":NaN}"}) {
    expect_invalid_json(body);
  }
}

TEST_F(Body, TrailingGarbageIsInvalidJson) {
  for (const char* body : {"{} x", "{}{}", "{},", "{} {\"price\":\"1\"}", "{}]", "{} 1"}) {
    expect_invalid_json(body);
  }
  expect_invalid_json(std::string_view("{}\0", 3));
  EXPECT_TRUE(patch("{} \r\n\t").ok());  // trailing whitespace is fine
}

TEST_F(Body, JsonThatIsNotAnObjectIsInvalidJson) {
  for (const char* body : {"[]", "[{\"price\":\"1.00\"}]", "\"x\"", "1", "null", "true"}) {
    const auto error = patch(body);
    expect_invalid_json(body);
    EXPECT_EQ(error.message, "The request body must be a JSON object.");
  }
}

TEST_F(Body, UnknownFieldIsNamed) {
  expect_error(patch(R"({"price":"1.00","stock":5})"), BodyStatus::parameter_unknown, "stock", "stock");
  expect_error(patch(R"({"Price":"1.00"})"), BodyStatus::parameter_unknown, "Price", "case matters");
  expect_error(patch(R"({"":1})"), BodyStatus::parameter_unknown, "", "empty name");
}

TEST_F(Body, MissingRequiredFieldsAreReportedInDeclarationOrder) {
  expect_stock_error(R"({"note":"x"})", BodyStatus::parameter_missing, "mode");
  expect_stock_error(R"({"mode":"set"})", BodyStatus::parameter_missing, "quantity");
  expect_stock_error(R"({"quantity":1})", BodyStatus::parameter_missing, "mode");
}

TEST_F(Body, FirstProblemInDocumentOrderWinsThenMissing) {
  // Unknown, repeated and mistyped fields are reported in document order, before any
  // missing field.
  expect_stock_error(R"({"extra":1,"quantity":"3"})", BodyStatus::parameter_unknown, "extra");
  expect_stock_error(R"({"quantity":"3","extra":1})", BodyStatus::parameter_invalid, "quantity");
  expect_stock_error(R"({"note":"x","note":"y","extra":1})", BodyStatus::parameter_invalid, "note");
  expect_stock_error(R"({"mode":"set","extra":1})", BodyStatus::parameter_unknown, "extra");
}

TEST_F(Body, DuplicateKeysAreParameterInvalid) {
  const auto error = patch(R"({"price":"1.00","price":"1.00"})");
  expect_error(error, BodyStatus::parameter_invalid, "price", "duplicate");
  EXPECT_EQ(error.message, "This field is given more than once.");
  expect_stock_error(R"({"mode":"set","quantity":1,"mode":"set"})", BodyStatus::parameter_invalid, "mode");
  // A repeated unknown field is reported as unknown at its first occurrence.
  expect_error(patch(R"({"x":1,"x":2})"), BodyStatus::parameter_unknown, "x", "repeated unknown");
}

TEST_F(Body, StringFieldsRejectOtherTypes) {
  for (const char* body : {R"({"price":149})", R"({"price":149.0})", R"({"price":null})", R"({"price":true})",
                           R"({"price":["1.00"]})", R"({"price":{"amount":"1.00"}})"}) {
    const auto error = patch(body);
    expect_error(error, BodyStatus::parameter_invalid, "price", body);
    EXPECT_EQ(error.message, "Expected a string.");
  }
  for (const char* body : {R"({"discount_type":1})", R"({"discount_type":false})", R"({"discount_type":[]})"}) {
    const auto error = patch(body);
    expect_error(error, BodyStatus::parameter_invalid, "discount_type", body);
    EXPECT_EQ(error.message, "Expected a string or null.");
  }
}

TEST_F(Body, StringsWithNulAreParameterInvalid) {
  expect_stock_error(R"({"mode":"set","quantity":1,"note":"a\u0000b"})", BodyStatus::parameter_invalid, "note");
}

TEST_F(Body, IntegerFieldsAcceptOnlyLiteralIntegers) {
  expect_stock_quantity(R"({"mode":"set","quantity":0})", 0);
  expect_stock_quantity(R"({"mode":"set","quantity":-0})", 0);
  expect_stock_quantity(R"({"mode":"set","quantity":42})", 42);
  for (const char* quantity : {"1.5", "1.0", "1e2", "1E0", "-0.0", "\"3\"", "true", "null", "[1]", "{}"}) {
    const std::string body = std::string(R"({"mode":"set","quantity":)") + quantity + "}";
    const auto error = post_stock(body);
    expect_error(error, BodyStatus::parameter_invalid, "quantity", body);
    EXPECT_EQ(error.message, "Expected an integer.");
  }
}

TEST_F(Body, Int32RangeIsEnforced) {
  expect_stock_quantity(R"({"mode":"set","quantity":2147483647})", 2147483647);
  expect_stock_quantity(R"({"mode":"set","quantity":-2147483648})", -2147483648LL);
  for (const char* quantity : {"2147483648", "-2147483649", "9223372036854775807", "18446744073709551615"}) {
    const std::string body = std::string(R"({"mode":"set","quantity":)") + quantity + "}";
    const auto error = post_stock(body);
    expect_error(error, BodyStatus::parameter_invalid, "quantity", body);
    EXPECT_EQ(error.message, "Expected an integer between -2147483648 and 2147483647.");
  }
}

TEST_F(Body, Int64RangeIsEnforced) {
  const std::string prefix = R"({"mode":"set","quantity":1,"sequence":)";
  ASSERT_TRUE(post_stock(prefix + "9223372036854775807}").ok());
  EXPECT_EQ(stock[3].number, INT64_MAX);
  ASSERT_TRUE(post_stock(prefix + "-9223372036854775808}").ok());
  EXPECT_EQ(stock[3].number, INT64_MIN);
  for (const char* value : {"9223372036854775808", "18446744073709551615", "18446744073709551616",
                            "-9223372036854775809", "99999999999999999999999999999999999999999"}) {
    const auto error = post_stock(prefix + value + "}");
    expect_error(error, BodyStatus::parameter_invalid, "sequence", value);
    EXPECT_EQ(error.message, "Expected an integer between -9223372036854775808 and 9223372036854775807.") << value;
  }
}

TEST_F(Body, HugeNumbersAreParameterErrorsNotInvalidJson) {
  // simdjson cannot represent these; they are still JSON, so the field is at fault.
  const std::string huge_float = std::string(400, '9') + ".5";
  for (const std::string& value : {std::string("1e400"), std::string("-1e400"), huge_float}) {
    const auto error = post_stock(R"({"mode":"set","quantity":)" + value + "}");
    expect_error(error, BodyStatus::parameter_invalid, "quantity", value);
    EXPECT_EQ(error.message, "Expected an integer.");
    expect_error(patch(R"({"price":)" + value + "}"), BodyStatus::parameter_invalid, "price", value);
    expect_error(patch(R"({"other":[)" + value + "]}"), BodyStatus::parameter_unknown, "other", value);
  }
  // A malformed number beside a huge one keeps the body invalid JSON.
  expect_invalid_json(R"({"price":1e400,"x":01})");
  expect_invalid_json(R"({"price":"1.00",1e400})");
}

TEST_F(Body, DeepNesting) {
  const std::string deep_ok = R"({"price":)" + std::string(100, '[') + std::string(100, ']') + "}";
  expect_error(patch(deep_ok), BodyStatus::parameter_invalid, "price", "100 levels");
  const std::string too_deep = R"({"price":)" + std::string(5000, '[') + std::string(5000, ']') + "}";
  expect_invalid_json(too_deep);
}

TEST_F(Body, LargeBodiesParse) {
  const std::string note(70000, 'n');  // larger than the preallocated buffers
  ASSERT_TRUE(post_stock(R"({"mode":"set","quantity":1,"note":")" + note + "\"}").ok());
  EXPECT_EQ(stock[2].text.size(), note.size());
  expect_stock_quantity(R"({"mode":"set","quantity":7})", 7);
}

// The values are the caller's: the parser's next parse (another request of the core)
// leaves them as they were, an unknown field's name included.
TEST_F(Body, ValuesOutliveTheParsersNextParse) {
  ASSERT_TRUE(post_stock(R"({"mode":"set","quantity":2,"note":"caf\u00e9"})").ok());
  std::array<FieldValue, 3> others{};
  BodyTexts other_texts;
  const auto unknown = parser.parse(R"({"price":"1.00","colour":"red"})", variant_fields, others, other_texts);
  ASSERT_TRUE(post_stock(R"({"mode":"adjust","quantity":-1,"note":"other"})").ok());
  EXPECT_EQ(others[0].text, "1.00");
  ASSERT_TRUE(!unknown.ok() && unknown.param);
  EXPECT_EQ(*unknown.param, "colour");
  // A body past the inline room keeps its texts on the heap, just as well.
  const std::string long_note(2 * BodyTexts::kInline, 'n');
  ASSERT_TRUE(parser.parse(R"({"price":")" + long_note + R"("})", variant_fields, others, other_texts).ok());
  ASSERT_TRUE(post_stock(R"({"mode":"set","quantity":1,"note":"short"})").ok());
  EXPECT_EQ(others[0].text, long_note);
}

TEST_F(Body, ParsesInPlaceWhenPaddingIsReadable) {
  const std::string json = R"({"price":"9.99","discount_type":null})";
  std::string buffer = json + std::string(simdjson::SIMDJSON_PADDING, ' ');
  const std::string_view body(buffer.data(), json.size());
  ASSERT_TRUE(parser.parse(body, buffer.size(), variant_fields, variant, texts).ok());
  EXPECT_EQ(variant[0].text, "9.99");
  EXPECT_TRUE(variant[1].is_null);
  // One byte short of the padding: copied first, same verdict.
  ASSERT_TRUE(parser.parse(body, buffer.size() - 1, variant_fields, variant, texts).ok());
  EXPECT_EQ(variant[0].text, "9.99");
  // Errors from the in-place path match the copying path.
  const std::string bad = R"({"price":1e400})";
  std::string bad_buffer = bad + std::string(simdjson::SIMDJSON_PADDING, ' ');
  const auto in_place = parser.parse({bad_buffer.data(), bad.size()}, bad_buffer.size(), variant_fields, variant, texts);
  ASSERT_FALSE(in_place.ok());
  EXPECT_EQ(in_place, patch(bad));
  EXPECT_EQ(bad_buffer.substr(0, bad.size()), bad);  // the caller's buffer is never written
}

TEST_F(Body, AllocatesNothingOnceWarm) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  const std::string json = R"({"mode":"adjust","quantity":-3,"note":"caf\u00e9"})";
  std::string buffer = json + std::string(simdjson::SIMDJSON_PADDING, ' ');
  const std::string_view body(buffer.data(), json.size());
  const auto parse_all = [&] {
    EXPECT_TRUE(parser.parse(body, buffer.size(), stock_fields, stock, texts).ok());  // in place
    EXPECT_TRUE(parser.parse(body, body.size(), stock_fields, stock, texts).ok());    // copied
    EXPECT_FALSE(post_stock(R"({"mode":"set","quantity":1e400})").ok());  // big numbers
    EXPECT_FALSE(post_stock(R"({"mode":"set","quantity":1,"x":1})").ok());
    EXPECT_FALSE(post_stock(R"({"mode":)").ok());
  };
  EXPECT_GT(storeapi::testing::allocations_during([] { BodyParser cold; }), 0u);  // the counter counts
  parse_all();
  EXPECT_EQ(storeapi::testing::allocations_during(parse_all), 0u);
}

TEST(BigNumbers, RewritesOnlyNumbersSimdjsonCannotHold) {
  struct Case {
    std::string input, expected;
    bool rewritten;
  };
  const Case cases[] = {
      {R"({"a":1,"b":-9223372036854775808,"c":0})", R"({"a":1,"b":-9223372036854775808,"c":0})", false},
      {R"({"a":9223372036854775808})", R"({"a":9223372036854775808})", true},
      {R"({"a":-9223372036854775809})", R"({"a":9223372036854775808 })", true},
      {R"({"a":123456789012345678901234})", R"({"a":9223372036854775808     })", true},
      {R"({"a":1e400,"b":[2.5E-3]})", R"({"a":0.5  ,"b":[0.5   ]})", true},
      {R"({"1e400":"1e400","x\"1e400":1})", R"({"1e400":"1e400","x\"1e400":1})", false},
      {R"({"a":01,"b":1.,"c":-,"d":1e,"e":1-2})", R"({"a":01,"b":1.,"c":-,"d":1e,"e":1-2})", false},
      {R"(["\\",1e999])", R"(["\\",0.5  ])", true},
  };
  for (const auto& c : cases) {
    std::string text = c.input;
    EXPECT_EQ(rewrite_big_numbers(text), c.rewritten) << c.input;
    EXPECT_EQ(text, c.expected) << c.input;
  }
}
