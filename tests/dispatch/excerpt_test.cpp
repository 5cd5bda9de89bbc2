#include "dispatch/excerpt.hpp"

#include <gtest/gtest.h>

namespace storeapi::dispatch {
namespace {

TEST(Excerpt, KeepsShortTextAsItIs) {
  EXPECT_EQ(response_excerpt("ok", 2), "ok");
  EXPECT_EQ(response_excerpt("", 0), "");
  EXPECT_EQ(response_excerpt("grüße", 7), "grüße");
}

TEST(Excerpt, CutsLongAnswersBetweenCharacters) {
  std::string body = std::string(999, 'a') + "é" + "tail";  // é straddles byte 1000
  EXPECT_EQ(response_excerpt(body.substr(0, 1000), body.size()), std::string(999, 'a'));
  std::string ascii(5000, 'b');
  EXPECT_EQ(response_excerpt(ascii.substr(0, 1000), ascii.size()), std::string(1000, 'b'));
}

TEST(Excerpt, DescribesBinaryAnswers) {
  EXPECT_EQ(response_excerpt(std::string("\x89PNG\0\0", 6), 2048), "(2048 bytes, not UTF-8 text)");
  EXPECT_EQ(response_excerpt("\xff\xfe", 2), "(2 bytes, not UTF-8 text)");
}

}  // namespace
}  // namespace storeapi::dispatch
