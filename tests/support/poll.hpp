#pragma once
// Waiting without fixed sleeps: poll a condition until it holds or a generous deadline
// passes, so tests stay fast on an idle machine and correct on a loaded one (another
// process coming up, a database reconnecting, a dispatcher delivering).
#include <algorithm>
#include <chrono>
#include <thread>

namespace storeapi::testing {

// True as soon as `condition()` holds; false if it still does not after `timeout`. The
// pause between two looks starts short and doubles up to `max_pause`: a condition that
// costs something to check (a request the server answers, a database query) is not
// hammered while it waits.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(30),
                std::chrono::milliseconds max_pause = std::chrono::milliseconds(20)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::chrono::microseconds pause(200);
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, max_pause);
  }
}

}  // namespace storeapi::testing
