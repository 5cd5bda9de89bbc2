#include "api/writes/validators.hpp"
#include "api/writes/write_request.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

using namespace storeapi::api;

TEST(DecimalAmount, AcceptsTheSpecFormat) {
  for (const char* ok : {"0", "1", "149", "149.0", "149.00", "0.5", "0.05", "00000000.00", "99999999", "99999999.99",
                         "12345678.9", "007"}) {
    EXPECT_TRUE(is_decimal_amount(ok)) << ok;
  }
}

TEST(DecimalAmount, RejectsEverythingElse) {
  for (const char* bad : {"", "123456789", "123456789.00", "1.", ".5", ".", "1.234", "1.2.3", "-1", "+1", " 1", "1 ",
                          "1e2", "1E2", "1,00", "0x1", "١", "1.0a", "a1", "1..0", "\xEF\xBC\x91"}) {
    EXPECT_FALSE(is_decimal_amount(bad)) << bad;
  }
  EXPECT_FALSE(is_decimal_amount(std::string_view("1\0", 2)));
}

TEST(Length, CountsCodePoints) {
  EXPECT_EQ(code_points(""), 0u);
  EXPECT_EQ(code_points("abc"), 3u);
  EXPECT_EQ(code_points("caf\xC3\xA9"), 4u);
  EXPECT_EQ(code_points("\xE2\x82\xAC\xF0\x9F\x98\x80"), 2u);
}

TEST(Length, BetweenIsInclusiveAndInCodePoints) {
  EXPECT_TRUE(length_between("a", 1, 100));
  EXPECT_FALSE(length_between("", 1, 100));
  EXPECT_TRUE(length_between("", 0, 200));
  EXPECT_TRUE(length_between(std::string(100, 'x'), 1, 100));
  EXPECT_FALSE(length_between(std::string(101, 'x'), 1, 100));
  // 100 euro signs are 300 bytes but 100 characters.
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xE2\x82\xAC";
  EXPECT_TRUE(length_between(euros, 1, 100));
  EXPECT_FALSE(length_between(euros + "\xE2\x82\xAC", 1, 100));
  EXPECT_TRUE(length_between("\xF0\x9F\x98\x80", 1, 1));
}

TEST(OneOf, ExactMembershipOnly) {
  constexpr std::array<std::string_view, 2> modes{"set", "adjust"};
  EXPECT_TRUE(is_one_of("set", modes));
  EXPECT_TRUE(is_one_of("adjust", modes));
  for (const char* bad : {"", "SET", "set ", "se", "adjusts"}) EXPECT_FALSE(is_one_of(bad, modes)) << bad;
  EXPECT_FALSE(is_one_of("set", std::span<const std::string_view>{}));
}

TEST(JsonMediaType, ApplicationJsonWithOptionalParameters) {
  for (const char* ok : {"application/json", "Application/JSON", "application/json; charset=utf-8",
                         "application/json;charset=UTF-8", " application/json ", "application/json\t; x=y"}) {
    EXPECT_TRUE(is_json_media_type(ok)) << ok;
  }
  for (const char* bad : {"", "text/plain", "application/jsonx", "application/x-www-form-urlencoded",
                          "application/json-patch+json", "application /json", "json", "; application/json"}) {
    EXPECT_FALSE(is_json_media_type(bad)) << bad;
  }
}

TEST(Email, AcceptsWhatHtmlCallsValid) {
  for (const char* ok : {"a@b", "clara.fischer15@example.org", "a+b@example.com", "x_y-z@sub.example.co.uk",
                         "!#$%&'*+/=?^_`{|}~-@example.com", "A@EXAMPLE.COM", "user@localhost", "a@1.2.3.4"}) {
    EXPECT_TRUE(is_email(ok)) << ok;
  }
  const std::string local64 = std::string(64, 'a') + "@example.com";
  EXPECT_TRUE(is_email(local64));
  const std::string label63 = "a@" + std::string(63, 'b') + ".com";
  EXPECT_TRUE(is_email(label63));
}

TEST(Email, RejectsEverythingElse) {
  for (const char* bad : {"", "@", "a@", "@b", "ab", "a@@b", "a@b@c", "a b@c", "a@b c", "a@b.", "a@.b", "a@b..c",
                          "a@-b", "a@b-", "a@b_c", "a(b)@c", "\"a\"@b", "caf\xC3\xA9@example.com", "a@ex\xC3\xA4mple.com",
                          "a@b\n"}) {
    EXPECT_FALSE(is_email(bad)) << bad;
  }
  EXPECT_FALSE(is_email(std::string(65, 'a') + "@example.com"));             // local part over 64
  EXPECT_FALSE(is_email("a@" + std::string(64, 'b') + ".com"));              // label over 63
  const auto address = [](std::size_t last_label) {
    return "a@" + std::string(63, 'b') + "." + std::string(63, 'c') + "." + std::string(63, 'd') + "." +
           std::string(last_label, 'e');
  };
  EXPECT_TRUE(is_email(address(60)));   // 254 characters in all
  EXPECT_FALSE(is_email(address(61)));  // 255
}
