// Stage timings: recorded per thread, summed by snapshot(); nothing is counted while off.
#include <gtest/gtest.h>

#include <thread>

#include "common/stage_timing.hpp"

namespace storeapi::stage_timing {
namespace {

std::uint64_t count(const Buckets& buckets) {
  std::uint64_t n = 0;
  for (const auto& [highest, c] : buckets) n += c;
  return n;
}

TEST(StageTiming, CoresRecordApartAndTheSnapshotSumsThem) {
  enable(true);
  const auto before = snapshot();
  std::thread other([] {
    for (int i = 0; i < 1000; ++i) record(Stage::parse, std::chrono::microseconds(3));
  });
  for (int i = 0; i < 500; ++i) record(Stage::parse, std::chrono::milliseconds(2));
  record(Stage::db, std::chrono::nanoseconds(-5));  // a clock step backwards counts as 0
  other.join();
  const auto after = snapshot();
  enable(false);

  const auto& parse = after[static_cast<std::size_t>(Stage::parse)];
  EXPECT_EQ(count(parse) - count(before[static_cast<std::size_t>(Stage::parse)]), 1500u);
  // 3 µs and 2 ms land in buckets holding them, at most 1/128 wide.
  bool saw_3us = false, saw_2ms = false;
  for (const auto& [highest, c] : parse) {
    saw_3us |= highest >= 3'000 && highest <= 3'000 + 3'000 / 128;
    saw_2ms |= highest >= 2'000'000 && highest <= 2'000'000 + 2'000'000 / 128;
  }
  EXPECT_TRUE(saw_3us);
  EXPECT_TRUE(saw_2ms);
  const auto& db = after[static_cast<std::size_t>(Stage::db)];
  ASSERT_FALSE(db.empty());
  EXPECT_EQ(db.front().first, 0u);
}

TEST(StageTiming, OffCountsNothing) {
  enable(false);
  const auto before = snapshot();
  record(Stage::render, std::chrono::microseconds(1));
  EXPECT_EQ(now_if_enabled(), Clock::time_point{});
  const auto after = snapshot();
  EXPECT_EQ(count(after[static_cast<std::size_t>(Stage::render)]), count(before[static_cast<std::size_t>(Stage::render)]));
}

TEST(StageTiming, EveryStageHasAName) {
  for (std::size_t s = 0; s < kStageCount; ++s) EXPECT_NE(name(static_cast<Stage>(s)), "?");
  EXPECT_EQ(name(Stage::db_queue), "db_queue");
}

}  // namespace
}  // namespace storeapi::stage_timing
