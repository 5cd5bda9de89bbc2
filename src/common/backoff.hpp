#pragma once
// The reconnect delay every database client of the project uses (the server's pool and
// LISTEN connections, the dispatcher's connection): the first wait is `first`, each
// failure after it doubles the wait up to `longest`, and a success starts over.
#include <algorithm>
#include <chrono>

namespace storeapi {

class Backoff {
 public:
  constexpr Backoff(std::chrono::milliseconds first, std::chrono::milliseconds longest) noexcept
      : first_(first), longest_(longest), next_(first) {}

  // The wait after this failure; the one after the next failure doubles.
  constexpr std::chrono::milliseconds next() noexcept {
    const std::chrono::milliseconds wait = next_;
    next_ = std::min(next_ * 2, longest_);
    return wait;
  }
  // After a success: the next failure waits `first` again.
  constexpr void reset() noexcept { next_ = first_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds longest_;
  std::chrono::milliseconds next_;
};

}  // namespace storeapi
