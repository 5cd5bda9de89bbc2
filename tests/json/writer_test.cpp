#include "json/writer.hpp"

#include "support/allocations.hpp"

#include <simdjson.h>

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

using storeapi::json::append_string;
using storeapi::json::Writer;

namespace {

std::string json_literal(std::string_view text) {
  std::string out;
  append_string(out, text);
  return out;
}

// The string a JSON string literal decodes to, per simdjson; fails the test on invalid JSON.
std::string decode(const std::string& literal) {
  simdjson::dom::parser parser;
  std::string_view value;
  const auto error = parser.parse(literal).get_string().get(value);
  EXPECT_EQ(error, simdjson::SUCCESS) << literal;
  return std::string(value);
}

}  // namespace

TEST(JsonString, PlainAsciiIsCopied) {
  EXPECT_EQ(json_literal(""), R"("")");
  EXPECT_EQ(json_literal("hello world/~\x7f"), "\"hello world/~\x7f\"");
}

TEST(JsonString, EscapesQuoteBackslashAndEveryControlCharacter) {
  EXPECT_EQ(json_literal("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_literal("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(json_literal(std::string_view("\0", 1)), R"("\u0000")");
  EXPECT_EQ(json_literal("\x01\x0b\x1f"), R"("\u0001\u000b\u001f")");
  for (int c = 0; c < 0x20; ++c) {
    const std::string text(1, static_cast<char>(c));
    const std::string literal = json_literal(text);
    EXPECT_EQ(decode(literal), text) << c;
    EXPECT_EQ(literal.find(static_cast<char>(c)), std::string::npos) << c;
  }
}

// The plain-run scan looks at 8 bytes at a time: a special byte must be caught at every
// offset within and after a block, with plain or special bytes around it.
TEST(JsonString, FindsSpecialBytesAtEveryOffset) {
  const std::pair<char, std::string_view> specials[] = {
      {'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\x1f', "\\u001f"}, {'\x80', "\xEF\xBF\xBD"}, {'\xFF', "\xEF\xBF\xBD"}};
  for (const auto& [special, escaped] : specials) {
    for (std::size_t at = 0; at < 20; ++at) {
      for (const char filler : {'a', ' ', '\x7f', '!', '#', '[', ']'}) {
        std::string text(20, filler);
        text[at] = special;
        const std::string expected =
            '"' + std::string(at, filler) + std::string(escaped) + std::string(19 - at, filler) + '"';
        ASSERT_EQ(json_literal(text), expected) << int(special) << " at " << at;
      }
    }
  }
}

TEST(JsonString, KeepsWellFormedUtf8AtEveryBoundary) {
  for (const char* text : {"\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF",
                           "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"}) {
    EXPECT_EQ(json_literal(text), '"' + std::string(text) + '"');
  }
}

TEST(JsonString, ReplacesEachMaximalIllFormedSubpartWithOneReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  struct Case {
    const char* input;
    std::string expected;
  };
  const Case cases[] = {
      {"\x80", fffd},                                       // stray continuation
      {"\xFF", fffd},                                       // never a UTF-8 byte
      {"\xF5\x80", fffd + fffd},                            // lead above U+10FFFF
      {"\xC0\xAF", fffd + fffd},                            // overlong '/'
      {"\xC1\xBF", fffd + fffd},                            // overlong
      {"\xE0\x80\xAF", fffd + fffd + fffd},                 // overlong, 3 bytes
      {"\xF0\x80\x80\xAF", fffd + fffd + fffd + fffd},      // overlong, 4 bytes
      {"\xED\xA0\x80", fffd + fffd + fffd},                 // surrogate U+D800
      {"\xED\xBF\xBF", fffd + fffd + fffd},                 // surrogate U+DFFF
      {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd},      // U+110000
      {"\xE2\x82", fffd},                                   // truncated at the end
      {"\xE2\x82x", fffd + "x"},                            // truncated before ASCII
      {"\xF0\x9F\x98", fffd},                               // truncated 4-byte sequence
      {"\xF0\x9F\x98\xF0\x9F\x98\x80", fffd + "\xF0\x9F\x98\x80"},
      {"\xC3", fffd},
      {"\xC3\"", fffd + "\\\""},                            // the quote after it is still escaped
      // Unicode 15, §3.9, Table 3-8.
      {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
       "a" + fffd + fffd + fffd + "b" + fffd + "c" + fffd + fffd + "d"},
  };
  for (const auto& c : cases) EXPECT_EQ(json_literal(c.input), '"' + c.expected + '"') << c.input;
}

// Random strings drawn to hit every class of byte: plain ASCII runs, escapes, well-formed
// sequences and fragments of them.
TEST(JsonString, RandomBytesAlwaysGiveValidJsonAndValidUtf8RoundTrips) {
  std::mt19937 rng(20261121);
  const std::string pieces[] = {"a",        "Z9 ",      "\"",       "\\",        "\n",           "\x01",
                                "\x7f",     "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\xA0\x80",
                                "\xC0\x80", "\x80",     "\xBF",     "\xE2\x82",  "\xF4\x90\x80\x80", "\xFE"};
  int valid = 0, invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < length; ++i) {
      if (rng() % 3 == 0) {
        text += static_cast<char>(rng() & 0xFF);  // any byte at all
      } else {
        text += pieces[rng() % std::size(pieces)];
      }
    }
    const std::string decoded = decode(json_literal(text));
    ASSERT_TRUE(simdjson::validate_utf8(decoded.data(), decoded.size()));
    if (simdjson::validate_utf8(text.data(), text.size())) {
      ++valid;
      ASSERT_EQ(decoded, text);
    } else {
      ++invalid;
      ASSERT_NE(decoded.find("\xEF\xBF\xBD"), std::string::npos);
    }
  }
  // Both branches were exercised in earnest.
  EXPECT_GT(valid, 1000);
  EXPECT_GT(invalid, 1000);
}

TEST(JsonWriter, WritesNestedDocumentsWithCommas) {
  std::string out;
  Writer w(out);
  w.begin_object()
      .key("a").integer(1)
      .key("b").begin_array().integer(1).string("x").boolean(true).boolean(false).null().end_array()
      .key("c").begin_object().end_object()
      .key("d").begin_array().end_array()
      .key("e").begin_array().begin_object().key("f").null().end_object().begin_array().end_array().end_array()
      .end_object();
  EXPECT_EQ(out, R"({"a":1,"b":[1,"x",true,false,null],"c":{},"d":[],"e":[{"f":null},[]]})");
}

TEST(JsonWriter, EscapesKeys) {
  std::string out;
  Writer(out).begin_object().key("we\"ird\n").integer(0).end_object();
  EXPECT_EQ(out, R"({"we\"ird\n":0})");
}

TEST(JsonWriter, WritesIntegerExtremes) {
  std::string out;
  Writer(out)
      .begin_array()
      .integer(0)
      .integer(-1)
      .integer(std::numeric_limits<std::int64_t>::max())
      .integer(std::numeric_limits<std::int64_t>::min())
      .end_array();
  EXPECT_EQ(out, "[0,-1,9223372036854775807,-9223372036854775808]");
}

TEST(JsonWriter, SplicesRawJsonAsValues) {
  std::string out;
  Writer(out)
      .begin_object()
      .key("object").string("list")
      .key("data").begin_array().raw(R"({"id":"1","x":[1,2]})").raw(R"({"id":"2"})").end_array()
      .key("has_more").raw("false")
      .end_object();
  EXPECT_EQ(out, R"({"object":"list","data":[{"id":"1","x":[1,2]},{"id":"2"}],"has_more":false})");
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(out).error(), simdjson::SUCCESS);
}

TEST(JsonWriter, AppendsToWhatTheBufferHolds) {
  std::string out = "prefix:";
  Writer(out).begin_array().integer(7).end_array();
  EXPECT_EQ(out, "prefix:[7]");
}

TEST(JsonWriter, AllocatesNothingOnceTheBufferIsWarm) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  std::string out;
  const auto write = [&] {
    out.clear();
    Writer(out)
        .begin_object()
        .key("name").string("caf\xC3\xA9 \"quoted\"\n\xFF")
        .key("items").begin_array().integer(-42).boolean(true).null().raw(R"({"a":1})").end_array()
        .end_object();
  };
  EXPECT_GT(storeapi::testing::allocations_during(write), 0u);  // cold: the buffers grow
  EXPECT_EQ(storeapi::testing::allocations_during(write), 0u);
  EXPECT_EQ(out, "{\"name\":\"caf\xC3\xA9 \\\"quoted\\\"\\n\xEF\xBF\xBD\",\"items\":[-42,true,null,{\"a\":1}]}");
}
