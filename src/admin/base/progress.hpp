#pragma once
// The progress of a long admin operation (a seed's tables, a store move's copy,
// migrate's migrations) on stderr, as pv or rsync --info=progress2 show it: done of total,
// the percentage, the rate and the time left. On a terminal one line is redrawn in place;
// elsewhere (a log, a test) a plain line at most every 30 s, so a short run writes nothing
// and a long one shows in its log that it moves.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace storeapi::admin {

// "seed orders: 12000/60000 rows 20% 5.3k rows/s 9 s left" (no rate or time left before a
// rate is known).
std::string progress_line(std::string_view task, std::string_view phase, std::size_t done, std::size_t total,
                          std::string_view unit, double seconds);

class Progress {
 public:
  // `task` leads each line ("seed", "store move"); `unit` names what is counted.
  explicit Progress(std::string_view task, std::string_view unit = "rows");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` in `phase`; the rate counts from the phase's first update.
  void update(std::string_view phase, std::size_t done, std::size_t total);

 private:
  using Clock = std::chrono::steady_clock;
  const std::string task_;
  const std::string unit_;
  const bool terminal_;
  std::string phase_;
  Clock::time_point phase_started_;
  Clock::time_point last_drawn_;
  bool drawn_ = false;
};

}  // namespace storeapi::admin
