#include "dispatch/retry_schedule.hpp"

#include <gtest/gtest.h>

#include <string>

namespace storeapi::dispatch {
namespace {

using namespace std::chrono_literals;

TEST(RetrySchedule, StandardSpansAboutThreeDays) {
  RetrySchedule s = RetrySchedule::standard();
  EXPECT_EQ(s.retries(), 12u);
  EXPECT_GE(s.total(), std::chrono::hours(72));
  EXPECT_LE(s.total(), std::chrono::hours(84));
}

TEST(RetrySchedule, ParsesCommaSeparatedSeconds) {
  auto s = RetrySchedule::parse("1,0,30");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->retries(), 3u);
  EXPECT_EQ(s->total(), 31s);
  for (const char* bad : {"", ",", "1,", ",1", "1,,2", "1;2", " 1", "1 ", "-1", "1.5", "x", "604801"})
    EXPECT_FALSE(RetrySchedule::parse(bad)) << bad;
  EXPECT_TRUE(RetrySchedule::parse("604800"));
}

// At most 100 retries: the 100th is taken, a 101st refuses the whole schedule (a
// boundary tools/mutants moved without any test noticing).
TEST(RetrySchedule, AtMostAHundredRetries) {
  std::string hundred = "1";
  for (int i = 1; i < 100; ++i) hundred += ",1";
  auto s = RetrySchedule::parse(hundred);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->retries(), 100u);
  EXPECT_FALSE(RetrySchedule::parse(hundred + ",1"));
}

TEST(RetrySchedule, DelaysAreJitteredWithinTwentyPercentAndRunOut) {
  auto s = *RetrySchedule::parse("10,100");
  std::mt19937_64 rng(42);
  bool varied = false;
  std::chrono::milliseconds previous{0};
  for (int i = 0; i < 200; ++i) {
    auto first = s.delay_after(1, rng);
    ASSERT_TRUE(first);
    EXPECT_GE(*first, 8000ms);
    EXPECT_LE(*first, 12000ms);
    varied = varied || (i > 0 && *first != previous);
    previous = *first;
    auto second = s.delay_after(2, rng);
    ASSERT_TRUE(second);
    EXPECT_GE(*second, 80000ms);
    EXPECT_LE(*second, 120000ms);
  }
  EXPECT_TRUE(varied);
  EXPECT_FALSE(s.delay_after(3, rng));
  EXPECT_FALSE(s.delay_after(0, rng));
}

}  // namespace
}  // namespace storeapi::dispatch
