// An admission element of the fleet's batch script becomes the same RateDecision the
// node's own bucket gives, with the store's last write position when one is recorded;
// anything else is no decision (the caller falls back). A store's keys share one Redis
// Cluster slot. (The batching itself, against a real Redis: tests/fleet/fleet_batch_test.cpp.)
#include <gtest/gtest.h>

#include "auth/fleet_batch.hpp"

namespace storeapi::auth {
namespace {

redis::Reply parse(const std::string& resp) {
  redis::ReplyReader reader;
  reader.feed(resp.data(), resp.size());
  bool broken = false;
  return reader.next(broken);
}

TEST(FleetAdmission, ReadsAllowedAndRefusedDecisions) {
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

TEST(FleetAdmission, ReadsTheStoresLastWritePosition) {
  auto admitted = admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$16\r\n00000016b374d848\r\n"), 60);
  ASSERT_TRUE(admitted);
  EXPECT_TRUE(admitted->rate.allowed);
  EXPECT_EQ(admitted->last_write_lsn, std::uint64_t{0x16b374d848});
  // A null fifth element is no position, not a broken reply.
  auto none = admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$-1\r\n"), 60);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->last_write_lsn);
}

TEST(FleetAdmission, AnythingElseIsNoDecision) {
  EXPECT_FALSE(admission_from_reply(*parse("-ERR oops\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*3\r\n:1\r\n:59\r\n:1\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*4\r\n:1\r\n$2\r\n59\r\n:1\r\n:0\r\n"), 60));
  // A position that is not db/lsn.hpp's fixed-width text is not trusted to route reads.
  EXPECT_FALSE(admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n$10\r\n16/B374D848\r\n"), 60));
  EXPECT_FALSE(admission_from_reply(*parse("*5\r\n:1\r\n:59\r\n:1\r\n:0\r\n:7\r\n"), 60));
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

TEST(FleetKeys, AppendsAfterWhatIsThere) {
  std::string keys = "x";
  append_key(keys, FleetKey::rate, "a");
  append_key(keys, FleetKey::write_position, "b");
  EXPECT_EQ(keys, "xstoreapi:{a}:ratestoreapi:{b}:lsn");
}

}  // namespace
}  // namespace storeapi::auth
