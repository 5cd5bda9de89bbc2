// The reply of the shared GCRA script becomes the same RateDecision the node's own bucket
// gives; anything else is no decision (the caller falls back).
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
  auto allowed = decision_from_reply(*parse("*4\r\n:1\r\n:59\r\n:1\r\n:0\r\n"), 60);
  ASSERT_TRUE(allowed);
  EXPECT_TRUE(allowed->allowed);
  EXPECT_EQ(allowed->limit, 60);
  EXPECT_EQ(allowed->remaining, 59);
  EXPECT_EQ(allowed->reset_s, 1);

  auto refused = decision_from_reply(*parse("*4\r\n:0\r\n:0\r\n:60\r\n:1\r\n"), 60);
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->allowed);
  EXPECT_EQ(refused->remaining, 0);
  EXPECT_EQ(refused->reset_s, 60);
  EXPECT_EQ(refused->retry_after_s, 1);
}

TEST(SharedRateLimit, AnythingElseIsNoDecision) {
  EXPECT_FALSE(decision_from_reply(*parse("-ERR oops\r\n"), 60));
  EXPECT_FALSE(decision_from_reply(*parse("*3\r\n:1\r\n:59\r\n:1\r\n"), 60));
  EXPECT_FALSE(decision_from_reply(*parse("*4\r\n:1\r\n$2\r\n59\r\n:1\r\n:0\r\n"), 60));
}

}  // namespace
}  // namespace storeapi::auth
