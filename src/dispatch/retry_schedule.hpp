#pragma once
// When a failed webhook delivery or e-mail is tried again: a list of waits, one per retry,
// each stretched or shrunk by random jitter so that many failures at once (a receiver
// that was down) do not come back in lockstep.
#include <chrono>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

namespace storeapi::dispatch {

class RetrySchedule {
 public:
  // 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h seven times: about 3.2 days from the first
  // attempt to the last of thirteen.
  static RetrySchedule standard();

  // Comma-separated whole seconds ("5,300,1800"), each 0 to 604800, at least one, at most
  // 100; nullopt for anything else.
  static std::optional<RetrySchedule> parse(std::string_view text);

  // The wait after the round's `attempt`-th attempt (1-based) failed, within +-20 % of
  // the listed one; nullopt when the schedule is exhausted (that attempt was the last).
  std::optional<std::chrono::milliseconds> delay_after(int attempt, std::mt19937_64& rng) const;

  std::size_t retries() const { return delays_.size(); }
  std::chrono::seconds total() const;

 private:
  explicit RetrySchedule(std::vector<std::chrono::seconds> delays) : delays_(std::move(delays)) {}

  std::vector<std::chrono::seconds> delays_;
};

}  // namespace storeapi::dispatch
