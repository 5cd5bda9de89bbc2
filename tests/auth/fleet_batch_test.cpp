// A run of requests of one store decided from where Redis says its bucket stood gets the
// same RateDecisions the node's own bucket gives; a reply element that is not such a
// start (with the store's last write position, when recorded) is no decision (the caller
// falls back). A store's keys share one Redis
// Cluster slot. (The batching itself, against a real Redis: tests/fleet/fleet_batch_test.cpp.)
#include <gtest/gtest.h>

#include "auth/fleet_batch.hpp"
#include "auth/rate_limiter.hpp"

namespace storeapi::auth {
namespace {

redis::Reply parse(const std::string& resp) {
  redis::ReplyReader reader;
  reader.feed(resp.data(), resp.size());
  bool broken = false;
  return reader.next(broken);
}

// Runs at one instant on the in-process bucket, whose state is in nanoseconds: a bucket
// `offset_us` ahead is reached by spending that much first (with a limit whose interval
// divides it). decision_in_run must give the nth of the run exactly what the bucket gives.
TEST(FleetDecisions, TheNthOfARunIsWhatTheNodesOwnBucketAnswersTheNthCall) {
  constexpr std::int64_t kNow = 1'000'000'000'000;  // ns
  for (std::int64_t per_minute : {1, 7, 60, 1000}) {
    const std::int64_t interval_us = 60'000'000 / per_minute;
    for (std::int64_t spent : {0, 1, 3}) {
      if (spent > per_minute) continue;
      RateBucket own;
      for (std::int64_t i = 0; i < spent; ++i) own.acquire(kNow, per_minute);
      // µs and ns intervals differ below a microsecond; the decisions do not.
      const std::int64_t offset_us = spent * interval_us;
      for (std::int64_t nth = 0; nth < per_minute + 3; ++nth) {
        const RateDecision expected = own.acquire(kNow, per_minute);
        const RateDecision got = decision_in_run(offset_us, per_minute, nth);
        EXPECT_EQ(got.allowed, expected.allowed) << per_minute << " " << spent << " " << nth;
        EXPECT_EQ(got.limit, expected.limit);
        EXPECT_EQ(got.remaining, expected.remaining) << per_minute << " " << spent << " " << nth;
        EXPECT_EQ(got.reset_s, expected.reset_s) << per_minute << " " << spent << " " << nth;
        EXPECT_EQ(got.retry_after_s, expected.retry_after_s) << per_minute << " " << spent << " " << nth;
      }
    }
  }
}

TEST(FleetDecisions, ABucketFullerThanItsWindowRefusesAll) {
  const RateDecision d = decision_in_run(61'000'000, 60, 0);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.remaining, 0);
  EXPECT_EQ(d.reset_s, 61);
  EXPECT_EQ(d.retry_after_s, 2);
}

// Microseconds are the script's unit: a limit above one request per µs (the benchmarks
// set 1,000,000,000 a minute) still allows its burst, counting down, rather than dividing
// by a zero interval.
TEST(FleetDecisions, ALimitAboveOnePerMicrosecondStillAllows) {
  const RateDecision first = decision_in_run(0, 1'000'000'000, 0);
  EXPECT_TRUE(first.allowed);
  EXPECT_EQ(first.limit, 1'000'000'000);
  EXPECT_EQ(first.remaining, 999'999'999);
  EXPECT_EQ(first.reset_s, 1);
  EXPECT_TRUE(decision_in_run(5'000, 1'000'000'000, 100).allowed);
}

TEST(FleetRunStart, ReadsTheOffsetAndTheStoresLastWritePosition) {
  auto bare = run_start_from_reply(*parse("*1\r\n:1500000\r\n"));
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->offset_us, 1'500'000);
  EXPECT_FALSE(bare->last_write_lsn);
  auto with = run_start_from_reply(*parse("*2\r\n:0\r\n$16\r\n00000016b374d848\r\n"));
  ASSERT_TRUE(with);
  EXPECT_EQ(with->offset_us, 0);
  EXPECT_EQ(with->last_write_lsn, std::uint64_t{0x16b374d848});
}

TEST(FleetRunStart, AnythingElseIsNoDecision) {
  EXPECT_FALSE(run_start_from_reply(*parse("-ERR oops\r\n")));
  EXPECT_FALSE(run_start_from_reply(*parse("*0\r\n")));
  EXPECT_FALSE(run_start_from_reply(*parse("*1\r\n$2\r\n59\r\n")));
  EXPECT_FALSE(run_start_from_reply(*parse("*1\r\n:-5\r\n")));
  // A position that is not db/lsn.hpp's fixed-width text is not trusted to route reads.
  EXPECT_FALSE(run_start_from_reply(*parse("*2\r\n:0\r\n$10\r\n16/B374D848\r\n")));
  EXPECT_FALSE(run_start_from_reply(*parse("*2\r\n:0\r\n:7\r\n")));
  EXPECT_FALSE(run_start_from_reply(*parse("*3\r\n:0\r\n$-1\r\n:1\r\n")));
}

// Redis Cluster's hash tag rule: the part between the first '{' and the next '}', when
// that part is not empty; otherwise the whole key is hashed.
std::string_view hash_tag(std::string_view key) {
  const std::size_t open = key.find('{');
  if (open == std::string_view::npos) return key;
  const std::size_t close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return key;
  return key.substr(open + 1, close - open - 1);
}

TEST(FleetKeys, AStoresKeysShareItsIdAsHashTag) {
  const std::string store = "0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162";
  std::string rate, position;
  append_key(rate, FleetKey::rate, store);
  append_key(position, FleetKey::write_position, store);
  EXPECT_EQ(rate, "storeapi:{0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162}:rate");
  EXPECT_EQ(position, "storeapi:{0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162}:lsn");
  // One slot for the store: a script call touching both is cluster-safe.
  EXPECT_EQ(hash_tag(rate), store);
  EXPECT_EQ(hash_tag(position), store);
}

TEST(FleetKeys, AWritePositionAfterTheFirstPlacementEpochHasItsOwnKey) {
  std::string position;
  append_key(position, FleetKey::write_position, "s", 2);
  EXPECT_EQ(position, "storeapi:{s}:lsn:2");
  EXPECT_EQ(hash_tag(position), "s");
}

TEST(FleetKeys, AppendsAfterWhatIsThere) {
  std::string keys = "x";
  append_key(keys, FleetKey::rate, "a");
  append_key(keys, FleetKey::write_position, "b");
  EXPECT_EQ(keys, "xstoreapi:{a}:ratestoreapi:{b}:lsn");
}

}  // namespace
}  // namespace storeapi::auth
