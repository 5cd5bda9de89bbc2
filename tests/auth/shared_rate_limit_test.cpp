// The reply of the shared GCRA script becomes the same RateDecision the node's own bucket
// gives, with the store's last write position when one is recorded; anything else is no
// decision (the caller falls back).
#include <gtest/gtest.h>

#include "auth/shared_rate_limit.hpp"

namespace storeapi::auth {
namespace {

redis::Reply parse(const std::string& resp) {
  redis::ReplyReader reader;
  reader.feed(resp.data(), resp.size());
  bool broken = false;
  return reader.next(broken);
}

TEST(SharedRateLimit, ReadsAllowedAndRefusedDecisions) {
  auto admitted = admission_from_reply(*parse("*4\r\n:1\r\n:59\r\n:1\r\n:0\r\n"), 60);
  ASSERT_TRUE(admitted);
  EXPECT_FALSE(admitted->last_write_lsn);
  const RateDecision* allowed = &admitted->rate;
  EXPECT_TRUE(allowed->allowed);
  EXPECT_EQ(allowed->limit, 60);
  EXPECT_EQ(allowed->remaining, 59);
  EXPECT_EQ(allowed->reset_s, 1);

  auto refusal = admission_from_reply(*parse("*4\r\n:0\r\n:0\r\n:60\r\n:1\r\n"), 60);
  ASSERT_TRUE(refusal);
  const RateDecision* refused = &refusal->rate;
  EXPECT_FALSE(refused->allowed);
  EXPECT_EQ(refused->remaining, 0);
  EXPECT_EQ(refused->reset_s, 60);
  EXPECT_EQ(refused->retry_after_s, 1);
}

TEST(SharedRateLimit, ReadsTheStoresLastWritePosition) {
  auto admitted = admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$16\r\n00000016b374d848\r\n"), 60);
  ASSERT_TRUE(admitted);
  EXPECT_TRUE(admitted->rate.allowed);
  EXPECT_EQ(admitted->last_write_lsn, std::uint64_t{0x16b374d848});
  // A null fifth element is no position, not a broken reply.
  auto none = admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$-1\r\n"), 60);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->last_write_lsn);
}

TEST(SharedRateLimit, AnythingElseIsNoDecision) {
  EXPECT_FALSE(admission_from_reply(*parse("-ERR oops\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*3\r\n:1\r\n:59\r\n:1\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*4\r\n:1\r\n$2\r\n59\r\n:1\r\n:0\r\n"), 60));
  // A position that is not db/lsn.hpp's fixed-width text is not trusted to route reads.
  EXPECT_FALSE(admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$10\r\n16/B374D848\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n:7\r\n"), 60));
}

TEST(SharedRateLimit, StoreKeysArePrefixAndId) {
  EXPECT_EQ(store_key(kRateKeyPrefix, "0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162").view(),
            "storeapi:rate:0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162");
  EXPECT_EQ(store_key(kWritePositionKeyPrefix, "0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162").view(),
            "storeapi:lsn:0b7e1c1e-8a3b-4c55-9d0f-1d2e3f405162");
}

}  // namespace
}  // namespace storeapi::auth
