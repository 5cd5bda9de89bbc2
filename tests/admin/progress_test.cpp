// The progress line of long admin operations: done of total, percentage, rate and time
// left, as pv shows them. Seen failing: the line had neither rate nor time left (seed's
// bar), and a store move's copy showed nothing at all.
#include "admin/base/progress.hpp"

#include <gtest/gtest.h>

namespace storeapi::admin {
namespace {

TEST(ProgressLine, ShowsDoneOfTotalRateAndTimeLeft) {
  EXPECT_EQ(progress_line("store move", "copy", 12000, 60000, "rows", 2.25),
            "store move copy: 12000/60000 rows 20% 5.3k rows/s 9 s left");
  EXPECT_EQ(progress_line("seed", "orders", 600000, 1800000, "rows", 0.5),
            "seed orders: 600000/1800000 rows 33% 1.2M rows/s 1 s left");
  EXPECT_EQ(progress_line("store move", "copy", 1000, 91000, "rows", 1), "store move copy: 1000/91000 rows 1% 1.0k rows/s 1 min 30 s left");
}

TEST(ProgressLine, NoRateBeforeOneIsKnownAndNoTimeLeftWhenDone) {
  EXPECT_EQ(progress_line("migrate", "applying", 0, 40, "migrations", 0), "migrate applying: 0/40 migrations 0%");
  EXPECT_EQ(progress_line("migrate", "applying", 40, 40, "migrations", 4), "migrate applying: 40/40 migrations 100% 10 migrations/s");
  EXPECT_EQ(progress_line("store move", "copy", 0, 0, "rows", 1), "store move copy: 0/0 rows 100%");
}

}  // namespace
}  // namespace storeapi::admin
