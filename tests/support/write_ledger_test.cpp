// The ledger's key-by-key tally and its windows: a lost write and a doubled one do not
// cancel out (as they would in a total), an unacknowledged write applied once is allowed.
#include "support/write_ledger.hpp"

#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = WriteLedger::Clock;

WriteLedger::Operation op(std::string key, Clock::time_point sent, std::optional<Clock::time_point> acknowledged) {
  return {.key = std::move(key), .first_sent = sent, .acknowledged_at = acknowledged, .attempts = 1};
}

TEST(WriteLedger, CountsEachKindOfMismatchKeyByKey) {
  const auto t0 = Clock::now();
  WriteLedger ledger;
  ledger.record(op("lost", t0, t0 + 1ms));
  ledger.record(op("doubled", t0, t0 + 1ms));
  ledger.record(op("fine", t0, t0 + 1ms));
  ledger.record(op("cut-off-applied", t0, std::nullopt));
  ledger.record(op("cut-off-not-applied", t0, std::nullopt));
  // The totals match (3 acknowledged, 3 rows of acknowledged keys), the keys do not.
  const std::map<std::string, long> rows{{"doubled", 2}, {"fine", 1}, {"cut-off-applied", 1}, {"stray", 1}};
  const WriteLedger::Tally t = ledger.tally(rows);
  EXPECT_EQ(t.operations, 5);
  EXPECT_EQ(t.acknowledged, 3);
  EXPECT_EQ(t.missing, 1);
  EXPECT_EQ(t.doubled, 1);
  EXPECT_EQ(t.applied_unacknowledged, 1);
  EXPECT_EQ(t.unasked, 1);
  // check() fails the test for each, and names the keys.
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    ledger.check(rows, "ledger");
  }
  std::string messages;
  for (int i = 0; i < failures.size(); ++i) messages += failures.GetTestPartResult(i).message() + std::string("\n");
  for (const char* part : {"missing from the database", "more than once", "keys no operation had", "lost: 0 rows",
                           "doubled: 2 rows"})
    EXPECT_NE(messages.find(part), std::string::npos) << part << " in:\n" << messages;
  EXPECT_EQ(messages.find("cut-off-applied"), std::string::npos) << messages;
}

TEST(WriteLedger, AKeyByKeyMatchPasses) {
  const auto t0 = Clock::now();
  WriteLedger ledger;
  ledger.record(op("a", t0, t0 + 1ms));
  ledger.record(op("b", t0, std::nullopt));
  const WriteLedger::Tally t = ledger.check({{"a", 1}}, "ledger");
  EXPECT_EQ(t.missing + t.doubled + t.unasked + t.applied_unacknowledged, 0);
}

TEST(WriteLedger, PlacesOperationsAgainstAFaultsWindow) {
  const auto t0 = Clock::now();
  WriteLedger ledger;
  ledger.record(op("before", t0, t0 + 5ms));            // done before the window
  ledger.record(op("across", t0 + 8ms, t0 + 30ms));     // sent before it, answered after
  ledger.record(op("within", t0 + 12ms, t0 + 40ms));    // sent in it, answered after
  ledger.record(op("after", t0 + 25ms, t0 + 26ms));     // sent after it
  ledger.record(op("given-up", t0 + 12ms, std::nullopt));
  const auto from = t0 + 10ms, to = t0 + 20ms;
  EXPECT_EQ(ledger.acknowledged_across(from, to), 2);
  EXPECT_EQ(ledger.first_acknowledged_after(to), 6ms);
  EXPECT_EQ(ledger.longest_silence(t0, t0 + 50ms), 21ms);  // 5 ms .. 26 ms
  EXPECT_EQ(ledger.acknowledged(), 4);
  EXPECT_TRUE(ledger.wait_acknowledged(3, t0 + 26ms, 0ms));
  EXPECT_FALSE(ledger.wait_acknowledged(4, t0 + 26ms, 10ms));
}

}  // namespace
}  // namespace storeapi::testing
