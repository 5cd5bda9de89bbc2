#include "support/write_ledger.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace storeapi::testing {

void WriteLedger::record(Operation op) {
  {
    std::lock_guard lock(mutex_);
    operations_.push_back(std::move(op));
  }
  acknowledged_cv_.notify_all();
}

long WriteLedger::acknowledged() const {
  std::lock_guard lock(mutex_);
  return std::count_if(operations_.begin(), operations_.end(), [](const Operation& op) { return op.acknowledged_at; });
}

bool WriteLedger::wait_acknowledged(long count, Clock::time_point since, Clock::duration bound) const {
  std::unique_lock lock(mutex_);
  return acknowledged_cv_.wait_for(lock, bound, [&] {
    return std::count_if(operations_.begin(), operations_.end(), [&](const Operation& op) {
             return op.acknowledged_at && *op.acknowledged_at >= since;
           }) >= count;
  });
}

std::vector<WriteLedger::Operation> WriteLedger::operations() const {
  std::lock_guard lock(mutex_);
  return operations_;
}

long WriteLedger::acknowledged_across(Clock::time_point from, Clock::time_point to) const {
  std::lock_guard lock(mutex_);
  return std::count_if(operations_.begin(), operations_.end(), [&](const Operation& op) {
    return op.acknowledged_at && op.first_sent <= to && *op.acknowledged_at >= from;
  });
}

std::optional<WriteLedger::Clock::duration> WriteLedger::first_acknowledged_after(Clock::time_point since) const {
  std::lock_guard lock(mutex_);
  std::optional<Clock::duration> first;
  for (const Operation& op : operations_)
    if (op.acknowledged_at && *op.acknowledged_at >= since && (!first || *op.acknowledged_at - since < *first))
      first = *op.acknowledged_at - since;
  return first;
}

WriteLedger::Clock::duration WriteLedger::longest_silence(Clock::time_point from, Clock::time_point to) const {
  std::vector<Clock::time_point> times{from, to};
  {
    std::lock_guard lock(mutex_);
    for (const Operation& op : operations_)
      if (op.acknowledged_at && *op.acknowledged_at > from && *op.acknowledged_at < to) times.push_back(*op.acknowledged_at);
  }
  std::sort(times.begin(), times.end());
  Clock::duration longest{};
  for (std::size_t i = 1; i < times.size(); ++i) longest = std::max(longest, times[i] - times[i - 1]);
  return longest;
}

WriteLedger::Tally WriteLedger::tally(const std::map<std::string, long>& rows) const {
  std::lock_guard lock(mutex_);
  Tally t;
  std::set<std::string> asked;
  for (const Operation& op : operations_) {
    asked.insert(op.key);
    ++t.operations;
    const auto found = rows.find(op.key);
    const long n = found == rows.end() ? 0 : found->second;
    if (op.acknowledged_at) ++t.acknowledged;
    if (op.acknowledged_at && n == 0) ++t.missing;
    if (n > 1) ++t.doubled;
    if (!op.acknowledged_at && n == 1) ++t.applied_unacknowledged;
  }
  for (const auto& [key, n] : rows) t.unasked += !asked.contains(key) && n > 0;
  return t;
}

WriteLedger::Tally WriteLedger::check(const std::map<std::string, long>& rows, const std::string& label) const {
  const Tally t = tally(rows);
  EXPECT_EQ(t.missing, 0) << label << ": acknowledged operations missing from the database";
  EXPECT_EQ(t.doubled, 0) << label << ": operations in the database more than once";
  EXPECT_EQ(t.unasked, 0) << label << ": rows under keys no operation had";
  if (t.missing || t.doubled) {
    std::lock_guard lock(mutex_);
    for (const Operation& op : operations_) {
      const auto found = rows.find(op.key);
      const long n = found == rows.end() ? 0 : found->second;
      if ((op.acknowledged_at && n == 0) || n > 1)
        ADD_FAILURE() << label << ": " << op.key << ": " << n << " rows, " << (op.acknowledged_at ? "" : "not ")
                      << "acknowledged, " << op.attempts << " attempts";
    }
  }
  std::printf("%s: %ld operations, %ld acknowledged; key by key: %ld missing, %ld doubled, %ld applied but "
              "unacknowledged, %ld unasked\n",
              label.c_str(), t.operations, t.acknowledged, t.missing, t.doubled, t.applied_unacknowledged, t.unasked);
  return t;
}

}  // namespace storeapi::testing
