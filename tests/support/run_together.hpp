#pragma once
// Requests that really overlap: a test of concurrency (a rate limit shared by connections,
// an idempotency key taken twice at once, stock sold by many at once) runs its clients on
// threads released at the same moment, after every one of them is ready.
#include <chrono>
#include <cstddef>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

namespace storeapi::testing {

// Runs body(0) ... body(count - 1), each on a thread of its own, all released together;
// returns once every one has finished, with the time from the release to then.
inline std::chrono::steady_clock::duration run_together(int count, const std::function<void(int)>& body) {
  std::latch ready(count), go(1);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      ready.count_down();
      go.wait();
      body(i);
    });
  }
  ready.wait();
  const auto released = std::chrono::steady_clock::now();
  go.count_down();
  for (std::thread& t : threads) t.join();
  return std::chrono::steady_clock::now() - released;
}

}  // namespace storeapi::testing
