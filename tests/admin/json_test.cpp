#include "admin/base/json.hpp"

#include <gtest/gtest.h>

using namespace storeapi::admin;

namespace {

// `text` as the admin tool writes a string value.
std::string quoted(std::string_view text) {
  JsonWriter json;
  json.value(text);
  return json.str();
}

}  // namespace

// The escaping itself is json::append_string's (tests/json/writer_test.cpp); these
// check that the admin tool's strings go through it.
TEST(Json, QuotesAndEscapesStrings) {
  EXPECT_EQ(quoted("plain"), "\"plain\"");
  EXPECT_EQ(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoted("line\nnext\ttab\r"), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(quoted(std::string_view("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(quoted("Grüße"), "\"Grüße\"");  // UTF-8 passes through
  EXPECT_EQ(quoted("bad \xff byte"), "\"bad \xEF\xBF\xBD byte\"");  // ill-formed UTF-8 becomes U+FFFD
}

TEST(Json, EscapesKeys) {
  JsonWriter json;
  json.begin_object().field("a\"b", 1).end_object();
  EXPECT_EQ(json.str(), R"({"a\"b":1})");
}

TEST(Json, WritesNestedObjectsAndArraysWithCommas) {
  JsonWriter json;
  json.begin_object()
      .field("s", "x")
      .field("n", std::int64_t{-3})
      .field("b", true)
      .field("none", std::optional<std::string>{})
      .field("some", std::optional<std::int64_t>{7});
  json.key("list").begin_array().value("a").begin_object().end_object().null().end_array();
  json.key("raw").raw("{\"k\":1}");
  json.end_object();
  EXPECT_EQ(json.str(),
            R"({"s":"x","n":-3,"b":true,"none":null,"some":7,"list":["a",{},null],"raw":{"k":1}})");
}

TEST(Json, WritesSecondsWithMillisecondPrecision) {
  JsonWriter json;
  json.begin_array().value(1.23456).value(0.0).end_array();
  EXPECT_EQ(json.str(), "[1.235,0.000]");
}
