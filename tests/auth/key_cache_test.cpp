// The per-core key cache: TTLs, the negative cache, invalidation by key, store or
// everything, answers that predate an invalidation, and its bounds. Time is passed in, so
// nothing here waits.
#include "auth/key_cache.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace storeapi::auth {
namespace {

using namespace std::chrono_literals;
using Clock = KeyCache::Clock;

const Uuid kStoreA = *Uuid::parse("7c9e6679-7425-40de-944b-e07fc1f90ae7");
const Uuid kStoreB = *Uuid::parse("1d47a987-6768-4250-ad85-f79b3b5b6f18");

KeyRecord record_of(const Uuid& store, std::int64_t rate = 60) {
  KeyRecord r;
  r.store_id = store;
  r.rate_per_minute = rate;
  return r;
}

class KeyCacheTest : public ::testing::Test {
 protected:
  KeyCache cache_{KeyCacheOptions{.ttl = 60s, .negative_ttl = 5s, .max_entries = 3, .max_negative = 2}};
  const Clock::time_point t0_ = Clock::now();
  const crypto::Sha256 a_ = crypto::sha256("key a");
  const crypto::Sha256 b_ = crypto::sha256("key b");
};

TEST_F(KeyCacheTest, AnEntryLivesForItsTtl) {
  EXPECT_EQ(cache_.find(a_, t0_), nullptr);
  cache_.insert(a_, record_of(kStoreA, 300), t0_, cache_.generation());
  const KeyRecord* found = cache_.find(a_, t0_ + 59s);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->rate_per_minute, 300);
  EXPECT_EQ(cache_.find(a_, t0_ + 60s), nullptr);
  EXPECT_EQ(cache_.size(), 0u);  // the expired entry was dropped
}

TEST_F(KeyCacheTest, UnknownKeysAreRememberedBriefly) {
  cache_.insert_unknown(a_, t0_, cache_.generation());
  EXPECT_TRUE(cache_.known_unknown(a_, t0_ + 4s));
  EXPECT_FALSE(cache_.known_unknown(b_, t0_));
  EXPECT_FALSE(cache_.known_unknown(a_, t0_ + 5s));
  // A key that became known is no longer unknown.
  cache_.insert_unknown(b_, t0_, cache_.generation());
  cache_.insert(b_, record_of(kStoreA), t0_, cache_.generation());
  EXPECT_FALSE(cache_.known_unknown(b_, t0_));
}

TEST_F(KeyCacheTest, InvalidationByKeyStoreOrEverything) {
  cache_.insert(a_, record_of(kStoreA), t0_, cache_.generation());
  cache_.insert(b_, record_of(kStoreB), t0_, cache_.generation());
  const std::uint64_t before = cache_.generation();

  cache_.invalidate("key:" + crypto::hex(a_));
  EXPECT_EQ(cache_.find(a_, t0_), nullptr);
  EXPECT_NE(cache_.find(b_, t0_), nullptr);
  EXPECT_EQ(cache_.generation(), before + 1);

  cache_.insert(a_, record_of(kStoreA), t0_, cache_.generation());
  cache_.invalidate("store:7c9e6679-7425-40de-944b-e07fc1f90ae7");
  EXPECT_EQ(cache_.find(a_, t0_), nullptr);
  EXPECT_NE(cache_.find(b_, t0_), nullptr);

  cache_.insert_unknown(a_, t0_, cache_.generation());
  cache_.invalidate("*");
  EXPECT_EQ(cache_.find(b_, t0_), nullptr);
  EXPECT_FALSE(cache_.known_unknown(a_, t0_));
  EXPECT_EQ(cache_.generation(), before + 3);
}

// Payloads that name nothing still count as invalidations (an answer in flight may
// predate whatever was meant) but drop nothing.
TEST_F(KeyCacheTest, MalformedPayloadsDropNothing) {
  cache_.insert(a_, record_of(kStoreA), t0_, cache_.generation());
  for (const char* payload : {"key:xyz", "key:", "store:not-a-uuid", "other", ""}) cache_.invalidate(payload);
  EXPECT_NE(cache_.find(a_, t0_), nullptr);
  EXPECT_EQ(cache_.generation(), 5u);
}

// A lookup that started before an invalidation serves its own request but is not kept:
// it may predate the change the invalidation announced.
TEST_F(KeyCacheTest, AnAnswerOlderThanAnInvalidationIsNotKept) {
  const std::uint64_t looked_up_at = cache_.generation();
  cache_.invalidate("store:1d47a987-6768-4250-ad85-f79b3b5b6f18");
  const KeyRecord& served = cache_.insert(a_, record_of(kStoreA, 120), t0_, looked_up_at);
  EXPECT_EQ(served.rate_per_minute, 120);
  EXPECT_EQ(cache_.find(a_, t0_), nullptr);
  cache_.insert_unknown(b_, t0_, looked_up_at);
  EXPECT_FALSE(cache_.known_unknown(b_, t0_));
}

// Full, the cache drops its least recently used entry, not everything: a key in use stays.
// (With the former wipe when full, "1" was gone after "4" came.)
TEST_F(KeyCacheTest, FullDropsTheLeastRecentlyUsed) {
  cache_.insert(crypto::sha256("1"), record_of(kStoreA), t0_, cache_.generation());
  cache_.insert(crypto::sha256("2"), record_of(kStoreA), t0_, cache_.generation());
  cache_.insert(crypto::sha256("3"), record_of(kStoreA), t0_, cache_.generation());
  EXPECT_NE(cache_.find(crypto::sha256("1"), t0_), nullptr);  // "2" is now the least recently used
  cache_.insert(crypto::sha256("4"), record_of(kStoreA), t0_, cache_.generation());
  EXPECT_EQ(cache_.size(), 3u);
  EXPECT_NE(cache_.find(crypto::sha256("1"), t0_), nullptr);
  EXPECT_EQ(cache_.find(crypto::sha256("2"), t0_), nullptr);
  EXPECT_NE(cache_.find(crypto::sha256("3"), t0_), nullptr);
  EXPECT_NE(cache_.find(crypto::sha256("4"), t0_), nullptr);

  cache_.insert_unknown(crypto::sha256("x"), t0_, cache_.generation());
  cache_.insert_unknown(crypto::sha256("y"), t0_, cache_.generation());
  EXPECT_TRUE(cache_.known_unknown(crypto::sha256("x"), t0_));
  cache_.insert_unknown(crypto::sha256("z"), t0_, cache_.generation());  // "y" goes
  EXPECT_TRUE(cache_.known_unknown(crypto::sha256("x"), t0_));
  EXPECT_FALSE(cache_.known_unknown(crypto::sha256("y"), t0_));
  EXPECT_TRUE(cache_.known_unknown(crypto::sha256("z"), t0_));
}

// More keys in use than the cache holds, asked for at random: the hit rate is about
// capacity / keys (least recently used), not the half of it or less that emptying the
// whole cache when full gave. Counts lookups, no timing.
TEST(KeyCacheEviction, HitRateDegradesGraduallyPastCapacity) {
  constexpr std::size_t kCapacity = 200;
  std::mt19937 random(42);
  double previous = 1.0;
  for (std::size_t keys : {250u, 400u, 800u}) {
    KeyCacheOptions options;
    options.max_entries = kCapacity;
    KeyCache cache(options);
    const auto now = KeyCache::Clock::now();
    std::uniform_int_distribution<std::size_t> pick(0, keys - 1);
    constexpr int kLookups = 40'000;
    int hits = 0;
    for (int i = 0; i < kLookups; ++i) {
      const crypto::Sha256 hash = crypto::sha256(std::to_string(pick(random)));
      if (cache.find(hash, now)) ++hits;
      else cache.insert(hash, record_of(kStoreA), now, cache.generation());
    }
    const double rate = static_cast<double>(hits) / kLookups;
    const double ideal = static_cast<double>(kCapacity) / static_cast<double>(keys);
    EXPECT_GE(rate, 0.9 * ideal) << keys << " keys";
    EXPECT_LE(rate, 1.1 * ideal) << keys << " keys";
    EXPECT_LT(rate, previous);
    previous = rate;
  }
}

}  // namespace
}  // namespace storeapi::auth
