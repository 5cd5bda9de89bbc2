#include "dispatch/retry_schedule.hpp"

#include <charconv>
#include <numeric>

namespace storeapi::dispatch {
namespace {

constexpr long kMaxDelaySeconds = 7 * 24 * 3600;
constexpr std::size_t kMaxRetries = 100;
constexpr double kJitter = 0.2;

}  // namespace

RetrySchedule RetrySchedule::standard() {
  using std::chrono::hours, std::chrono::minutes, std::chrono::seconds;
  std::vector<seconds> delays = {seconds(5), minutes(5), minutes(30), hours(2), hours(5)};
  delays.insert(delays.end(), 7, hours(10));
  return RetrySchedule(std::move(delays));
}

std::optional<RetrySchedule> RetrySchedule::parse(std::string_view text) {
  std::vector<std::chrono::seconds> delays;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (true) {
    long seconds = 0;
    auto [next, ec] = std::from_chars(p, end, seconds);
    if (ec != std::errc{} || next == p || seconds < 0 || seconds > kMaxDelaySeconds) return std::nullopt;
    delays.emplace_back(seconds);
    if (next == end) break;
    if (*next != ',') return std::nullopt;
    p = next + 1;
  }
  if (delays.size() > kMaxRetries) return std::nullopt;
  return RetrySchedule(std::move(delays));
}

std::optional<std::chrono::milliseconds> RetrySchedule::delay_after(int attempt, std::mt19937_64& rng) const {
  if (attempt < 1 || static_cast<std::size_t>(attempt) > delays_.size()) return std::nullopt;
  std::uniform_real_distribution<double> factor(1.0 - kJitter, 1.0 + kJitter);
  auto listed = std::chrono::duration<double, std::milli>(delays_[static_cast<std::size_t>(attempt) - 1]);
  return std::chrono::duration_cast<std::chrono::milliseconds>(listed * factor(rng));
}

std::chrono::seconds RetrySchedule::total() const {
  return std::accumulate(delays_.begin(), delays_.end(), std::chrono::seconds(0));
}

}  // namespace storeapi::dispatch
