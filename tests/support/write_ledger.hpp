#pragma once
// The client's record of writes that cross a fault, one logical operation per
// Idempotency-Key, for the tests that check them key by key against the database: the
// writers put the key in the write itself (the stock movement's note, or whatever the
// resource keeps), record each operation here when it ends — acknowledged or given up —
// with the client's own timestamps, and the test compares each key with the rows the
// database holds for it:
//   - missing: acknowledged, but not in the database (a lost write);
//   - doubled: in the database more than once;
//   - applied but unacknowledged: in the database once, though the client never got its
//     answer (a fault cut it off): allowed, and reported;
//   - unasked: in the database under a key of the run that no operation had.
// The timestamps place the operations against a fault's window (fence to lift, kill to
// promotion, as the test saw them on the same clock): the test asks that some acknowledged
// operation was in flight across it, else the fault missed the writes and proved nothing.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::testing {

class WriteLedger {
 public:
  using Clock = std::chrono::steady_clock;

  struct Operation {
    std::string key;
    Clock::time_point first_sent{};
    std::optional<Clock::time_point> acknowledged_at;  // none: given up, or never answered
    int attempts = 0;
  };

  struct Tally {
    long operations = 0, acknowledged = 0, missing = 0, doubled = 0, applied_unacknowledged = 0, unasked = 0;
  };

  // From any thread.
  void record(Operation op);

  long acknowledged() const;
  // Waits (up to `bound`) until `count` operations were acknowledged at or after `since`.
  bool wait_acknowledged(long count, Clock::time_point since, Clock::duration bound) const;
  std::vector<Operation> operations() const;

  // Acknowledged operations in flight during [from, to]: first sent by `to`, acknowledged
  // at or after `from` (a write held across a fence, a write retried across an outage).
  long acknowledged_across(Clock::time_point from, Clock::time_point to) const;
  // The first acknowledgement at or after `since`, as the time since it.
  std::optional<Clock::duration> first_acknowledged_after(Clock::time_point since) const;
  // The longest time between two consecutive acknowledgements (of any client) within
  // [from, to], the window's ends counted as acknowledgements.
  Clock::duration longest_silence(Clock::time_point from, Clock::time_point to) const;

  // Key by key against `rows`: the number of rows the database holds for each key of the
  // run it found (keys with none may be left out).
  Tally tally(const std::map<std::string, long>& rows) const;
  // The same, asserted (0 missing, 0 doubled, 0 unasked) and printed under `label`.
  Tally check(const std::map<std::string, long>& rows, const std::string& label) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable acknowledged_cv_;
  std::vector<Operation> operations_;
};

}  // namespace storeapi::testing
