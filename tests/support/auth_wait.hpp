#pragma once
// Polling with a deadline, for tests that wait on another process (a server coming up, a
// database reconnecting): never a fixed sleep, and generous limits, since the machine may
// be busy building.
#include <chrono>
#include <thread>

namespace storeapi::testing {

// Calls `condition` until it returns true or `limit` has passed; returns its last answer.
template <class Condition>
bool wait_until(Condition condition, std::chrono::milliseconds limit = std::chrono::seconds(30),
                std::chrono::milliseconds interval = std::chrono::milliseconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace storeapi::testing
