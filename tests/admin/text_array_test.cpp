#include "admin/base/database.hpp"

#include <gtest/gtest.h>

using storeapi::admin::text_array_literal;

TEST(TextArrayLiteral, QuotesEveryElementAndEscapesQuotesAndBackslashes) {
  EXPECT_EQ(text_array_literal({}), "{}");
  EXPECT_EQ(text_array_literal({"orders:read", "a b"}), R"({"orders:read","a b"})");
  EXPECT_EQ(text_array_literal({R"(say "hi")", R"(c:\x)", "{,}"}), R"({"say \"hi\"","c:\\x","{,}"})");
}
