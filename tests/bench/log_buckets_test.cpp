// The log-linear latency buckets: every value has a bucket no wider than 1/128 of it, the
// buckets are ordered, and values past the top share the last bucket.
#include <gtest/gtest.h>

#include "log_buckets.hpp"

namespace storeapi::log_buckets {
namespace {

TEST(LogBuckets, EveryValueLandsInABucketWithinOnePart128) {
  for (std::uint64_t v = 0; v < (std::uint64_t{1} << kTopMagnitude); v = v < 4096 ? v + 1 : v + v / 97 + 1) {
    const unsigned b = bucket_of(v);
    ASSERT_LT(b, kCount);
    ASSERT_GE(highest_in(b), v) << v;
    ASSERT_LE(highest_in(b) - v, v / 128) << v;
    if (b > 0) {
      ASSERT_LT(highest_in(b - 1), v) << v;
    }
  }
}

TEST(LogBuckets, ValuesBeyondTheTopShareTheLastBucket) {
  EXPECT_EQ(bucket_of(std::uint64_t{1} << kTopMagnitude), kCount - 1);
  EXPECT_EQ(bucket_of(UINT64_MAX), kCount - 1);
  EXPECT_EQ(bucket_of((std::uint64_t{1} << kTopMagnitude) - 1), kCount - 1);
}

}  // namespace
}  // namespace storeapi::log_buckets
