// WakeTurns (api/writes/dispatcher_wake.hpp): which write carries the dispatchers' NOTIFY, and
// when a wake-up of its own is still needed. Time is passed in, so nothing sleeps.
#include "api/writes/dispatcher_wake.hpp"

#include <gtest/gtest.h>

namespace storeapi::api {
namespace {

using namespace std::chrono_literals;
using Clock = WakeTurns::Clock;

class Turns : public ::testing::Test {
 protected:
  WakeTurns turns{25ms};
  Clock::time_point t0 = Clock::now();
};

TEST_F(Turns, TheFirstWriteCarriesItAndNeedsNothingMore) {
  EXPECT_TRUE(turns.take_turn(t0));
  EXPECT_FALSE(turns.after_write(true, true, true));
  EXPECT_FALSE(turns.uncovered());
}

TEST_F(Turns, AtMostOneCarrierPerInterval) {
  EXPECT_TRUE(turns.take_turn(t0));
  EXPECT_FALSE(turns.take_turn(t0 + 1ms));
  EXPECT_FALSE(turns.take_turn(t0 + 24ms));
  EXPECT_TRUE(turns.take_turn(t0 + 25ms));
  EXPECT_FALSE(turns.take_turn(t0 + 26ms));
}

// Under load every write but one per interval commits without the NOTIFY, and the next
// carrier takes them over: no wake-up of their own is ever due while writes keep coming.
TEST_F(Turns, UnderLoadTheNextCarrierTakesTheOthersOver) {
  int separate = 0;
  for (int ms = 0; ms < 1000; ++ms) {
    const Clock::time_point now = t0 + std::chrono::milliseconds(ms);
    if (turns.uncovered() && now >= turns.send_due()) {
      turns.sent(now);
      ++separate;
    }
    const bool carried = turns.take_turn(now);
    turns.after_write(carried, true, true);
  }
  EXPECT_EQ(separate, 0);
  // The writes after the last carrier wait for the idle tail's wake-up: one interval
  // after the next carrier could have come.
  EXPECT_TRUE(turns.uncovered());
  EXPECT_EQ(turns.send_due(), t0 + 975ms + 25ms + 25ms);
}

TEST_F(Turns, AWriteWithoutOutboxRowsOrThatFailedNeedsNoWakeUp) {
  ASSERT_TRUE(turns.take_turn(t0));
  EXPECT_FALSE(turns.after_write(false, true, false));  // refused: nothing queued
  EXPECT_FALSE(turns.after_write(false, false, false));  // 5xx: rolled back
  EXPECT_TRUE(turns.after_write(false, true, true));
}

TEST_F(Turns, TheSeparateWakeUpCoversWhatWasAnsweredAndRestartsTheInterval) {
  ASSERT_TRUE(turns.take_turn(t0));
  turns.after_write(false, true, true);
  ASSERT_TRUE(turns.uncovered());
  EXPECT_EQ(turns.send_due(), t0 + 50ms);
  turns.sent(t0 + 50ms);
  EXPECT_FALSE(turns.uncovered());
  EXPECT_FALSE(turns.take_turn(t0 + 60ms));
  EXPECT_TRUE(turns.take_turn(t0 + 75ms));
}

// A carrier that failed lost its NOTIFY with its transaction: the writes it took over
// need one again; a failed carrier that took over nothing leaves nothing to announce.
TEST_F(Turns, AFailedCarrierGivesBackWhatItTookOver) {
  ASSERT_TRUE(turns.take_turn(t0));
  EXPECT_FALSE(turns.after_write(true, false, false));
  ASSERT_FALSE(turns.take_turn(t0 + 1ms));
  turns.after_write(false, true, true);
  ASSERT_TRUE(turns.take_turn(t0 + 30ms));
  EXPECT_FALSE(turns.uncovered());
  EXPECT_TRUE(turns.after_write(true, false, false));
}

}  // namespace
}  // namespace storeapi::api
