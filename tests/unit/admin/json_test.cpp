#include "admin/json.hpp"

#include <gtest/gtest.h>

using namespace storeapi::admin;

TEST(Json, QuotesAndEscapesStrings) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("line\nnext\ttab\r"), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(json_quote(std::string_view("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote("Grüße"), "\"Grüße\"");  // UTF-8 passes through
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
