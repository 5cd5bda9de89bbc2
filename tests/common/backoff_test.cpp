#include "common/backoff.hpp"

#include <gtest/gtest.h>

namespace storeapi {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, DoublesUpToTheLongestAndStartsOverAfterASuccess) {
  Backoff backoff(milliseconds(50), milliseconds(300));
  EXPECT_EQ(backoff.next(), milliseconds(50));
  EXPECT_EQ(backoff.next(), milliseconds(100));
  EXPECT_EQ(backoff.next(), milliseconds(200));
  EXPECT_EQ(backoff.next(), milliseconds(300));  // 400 capped
  EXPECT_EQ(backoff.next(), milliseconds(300));
  backoff.reset();
  EXPECT_EQ(backoff.next(), milliseconds(50));
  EXPECT_EQ(backoff.next(), milliseconds(100));
}

TEST(Backoff, FirstEqualToLongestStaysThere) {
  Backoff backoff(milliseconds(500), milliseconds(500));
  EXPECT_EQ(backoff.next(), milliseconds(500));
  EXPECT_EQ(backoff.next(), milliseconds(500));
}

}  // namespace
}  // namespace storeapi
