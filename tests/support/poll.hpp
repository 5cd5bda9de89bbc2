#pragma once
// Waiting without fixed sleeps: poll a condition until it holds or a generous deadline
// passes, so tests stay fast on an idle machine and correct on a loaded one.
#include <chrono>
#include <thread>

namespace storeapi::testing {

// True as soon as `condition()` holds; false if it still does not after `timeout`.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::milliseconds(10'000)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(20)) pause *= 2;
  }
}

}  // namespace storeapi::testing
