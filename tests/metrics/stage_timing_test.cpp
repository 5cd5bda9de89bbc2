// Stage timings: recorded into the storeapi_request_stage_seconds family of the metrics
// registry, one series per stage, from any thread; nothing is counted (and no family
// registered) while off.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

#include "metrics/stage_timing.hpp"

namespace storeapi::stage_timing {
namespace {

metrics::Histogram& series_of(metrics::Registry& registry, Stage stage) {
  return registry.histogram(kFamily, "", {"stage"}, buckets()).with({name(stage)});
}

TEST(StageTiming, OnRecordsIntoTheFamilyFromEveryThread) {
  metrics::Registry registry(1);
  enable(true, registry);
  std::thread core([] {
    metrics::bind_this_thread(0);
    for (int i = 0; i < 1000; ++i) record(Stage::parse, std::chrono::microseconds(3));
  });
  core.join();
  for (int i = 0; i < 500; ++i) record(Stage::parse, std::chrono::milliseconds(2));
  record(Stage::db, std::chrono::nanoseconds(-5));  // a clock step backwards counts as 0
  enable(false);

  const metrics::Histogram& parse = series_of(registry, Stage::parse);
  EXPECT_EQ(parse.count(), 1500u);
  EXPECT_NEAR(parse.sum(), 1000 * 3e-6 + 500 * 2e-3, 1e-9);
  // 3 µs lands in the bucket (2 µs, 3 µs], 2 ms in (1.5 ms, 2 ms].
  const auto bounds = parse.bounds();
  const auto index = [&](double le) {
    return static_cast<unsigned>(std::find(bounds.begin(), bounds.end(), le) - bounds.begin());
  };
  EXPECT_EQ(parse.bucket(index(3e-6)), 1000u);
  EXPECT_EQ(parse.bucket(index(2e-3)), 500u);
  const metrics::Histogram& db = series_of(registry, Stage::db);
  EXPECT_EQ(db.bucket(0), 1u);
  EXPECT_EQ(db.sum(), 0.0);
  EXPECT_EQ(series_of(registry, Stage::render).count(), 0u);

  // Every stage is a series of the family, exposed even before its first record.
  const std::string text = registry.expose();
  EXPECT_NE(text.find("# TYPE storeapi_request_stage_seconds histogram"), std::string::npos);
  for (std::size_t s = 0; s < kStageCount; ++s)
    EXPECT_NE(text.find("storeapi_request_stage_seconds_count{stage=\"" + std::string(name(static_cast<Stage>(s))) + "\"}"),
              std::string::npos)
        << name(static_cast<Stage>(s));
}

TEST(StageTiming, OffRegistersNothingAndCountsNothing) {
  metrics::Registry earlier;
  enable(true, earlier);
  metrics::Registry registry;
  enable(false, registry);
  record(Stage::render, std::chrono::microseconds(1));
  record_since(Stage::total, Clock::now());
  EXPECT_EQ(now_if_enabled(), Clock::time_point{});
  EXPECT_EQ(registry.expose().find("storeapi_request_stage_seconds"), std::string::npos);
  EXPECT_EQ(series_of(earlier, Stage::render).count(), 0u);
  EXPECT_EQ(series_of(earlier, Stage::total).count(), 0u);
}

// The RAII timer counts its stage exactly once: at stop() (less what it excludes), or
// when its scope ends without one; a cancelled timer counts nothing; off, it counts
// nothing and returns zero. The send scope's count is the destructor's: without its
// stop() it would be 0.
TEST(StageTiming, ATimerCountsItsStageOnceHoweverItsScopeEnds) {
  metrics::Registry registry(1);
  enable(true, registry);
  metrics::bind_this_thread(0);
  {
    Timer render(Stage::render);
    const Clock::duration counted = render.stop(std::chrono::hours(-1));  // excluded negative: counted ≥ 1 h
    EXPECT_GE(counted, std::chrono::hours(1));
    EXPECT_EQ(render.stop(), Clock::duration{});  // already counted
  }
  { Timer send(Stage::send); }
  {
    Timer parse(Stage::parse);
    parse.cancel();
  }
  metrics::bind_this_thread(metrics::kNoCore);
  enable(false);
  EXPECT_EQ(series_of(registry, Stage::render).count(), 1u);
  EXPECT_GE(series_of(registry, Stage::render).sum(), 3600.0);
  EXPECT_EQ(series_of(registry, Stage::send).count(), 1u);
  EXPECT_EQ(series_of(registry, Stage::parse).count(), 0u);

  Timer off(Stage::auth);
  EXPECT_EQ(off.started(), Clock::time_point{});
  EXPECT_EQ(off.stop(), Clock::duration{});
}

TEST(StageTiming, BucketsSpanAMicrosecondToTenSecondsAscending) {
  const auto b = buckets();
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front(), 1e-6);
  EXPECT_EQ(b.back(), 10.0);
  EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
  EXPECT_EQ(std::adjacent_find(b.begin(), b.end()), b.end());
}

TEST(StageTiming, EveryStageHasAName) {
  for (std::size_t s = 0; s < kStageCount; ++s) EXPECT_NE(name(static_cast<Stage>(s)), "?");
  EXPECT_EQ(name(Stage::db_queue), "db_queue");
}

}  // namespace
}  // namespace storeapi::stage_timing
