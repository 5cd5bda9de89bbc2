// The GCRA bucket's arithmetic at fixed instants: burst, steady refill, refusals that cost
// nothing, the RateLimit-Reset / Retry-After values, and exactness under threads.
#include "auth/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace storeapi::auth {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kStart = 1'000 * kSecond;  // any monotonic reading

TEST(RateBucket, BurstsToTheLimitWithRemainingCountingDown) {
  RateBucket bucket;
  for (int i = 0; i < 60; ++i) {
    RateDecision d = bucket.acquire(kStart, 60);
    ASSERT_TRUE(d.allowed) << i;
    EXPECT_EQ(d.limit, 60);
    EXPECT_EQ(d.remaining, 59 - i);
    EXPECT_EQ(d.reset_s, i + 1);  // one second of refill per request taken
  }
  RateDecision refused = bucket.acquire(kStart, 60);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.remaining, 0);
  EXPECT_EQ(refused.retry_after_s, 1);
  EXPECT_EQ(refused.reset_s, 60);
}

TEST(RateBucket, RefusalsConsumeNothingAndTheRefillIsSteady) {
  RateBucket bucket;
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(bucket.acquire(kStart, 30).allowed);
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(bucket.acquire(kStart + kSecond, 30).allowed);
  // 30 a minute: one every 2 s, whatever was refused meanwhile.
  RateDecision early = bucket.acquire(kStart + 2 * kSecond - 1, 30);
  EXPECT_FALSE(early.allowed);
  EXPECT_EQ(early.retry_after_s, 1);
  EXPECT_TRUE(bucket.acquire(kStart + 2 * kSecond, 30).allowed);
  EXPECT_FALSE(bucket.acquire(kStart + 2 * kSecond, 30).allowed);
  EXPECT_EQ(bucket.acquire(kStart + 2 * kSecond, 30).retry_after_s, 2);
}

TEST(RateBucket, AnIdleBucketIsFullAgain) {
  RateBucket bucket;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(bucket.acquire(kStart, 5).allowed);
  EXPECT_FALSE(bucket.idle(kStart + 59 * kSecond));
  EXPECT_TRUE(bucket.idle(kStart + 60 * kSecond));
  RateDecision d = bucket.acquire(kStart + 60 * kSecond, 5);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.remaining, 4);
}

TEST(RateBucket, ExactUnderConcurrentCores) {
  RateBucket bucket;
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10'000; ++i) allowed += bucket.acquire(kStart, 300).allowed;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 300);
}

TEST(RateLimiter, OneBucketPerStore) {
  RateLimiter limiter;
  Uuid a = Uuid::parse("0b6c4a8e-2f1d-4c3b-9e5a-7d8f6a1b2c3d").value();
  Uuid b = Uuid::parse("1b6c4a8e-2f1d-4c3b-9e5a-7d8f6a1b2c3d").value();
  auto first = limiter.bucket(a);
  EXPECT_EQ(limiter.bucket(a), first);
  EXPECT_NE(limiter.bucket(b), first);
  // b's bucket is referenced by nobody and full: dropped; a's is held.
  EXPECT_EQ(limiter.evict_idle(kStart), 1u);
}

}  // namespace
}  // namespace storeapi::auth
