#pragma once
// Waiting inside a test's reactor for what another coroutine of that core changes: on the
// runtime::Event that announces the change (docs/ARCHITECTURE.md §3, "Waiting for another
// coroutine"), never by sleeping in a loop. `Finished` counts the tasks a test spawned as
// they end and wakes whoever waits for them. One core: change, count and wait on the
// test's reactor.
//
// Await these in a statement of their own, never inside a macro that evaluates its
// condition twice (CO_ASSERT_TRUE-style): the second wait would find nobody left to wake
// it, and would last its whole timeout.
#include <chrono>

#include "runtime/event.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::testing {

// Whether `condition()` holds, looked at again each time `event` wakes its waiters, within
// `timeout`. The co_await stands in a statement of its own (docs/ARCHITECTURE.md §3: GCC 12
// at -O3 has skipped a coroutine's body awaited inside a loop's `if` condition).
template <class Condition>
runtime::task<bool> until(runtime::Event& event, runtime::Clock::duration timeout, Condition condition) {
  const auto deadline = runtime::Clock::now() + timeout;
  while (!condition()) {
    const runtime::Woken woken = co_await event.wait_until(deadline);
    if (woken != runtime::Woken::signalled) co_return condition();
  }
  co_return true;
}

// Tasks finished so far. A task calls one() as it ends; the test awaits reach(n, timeout).
// Keep it alive as long as a task that may call one() (beside the units such tasks run).
class Finished {
 public:
  void one() noexcept {
    ++count_;
    changed_.broadcast();
  }
  int count() const noexcept { return count_; }
  // Whether `n` tasks have finished, waiting at most `timeout` for them.
  runtime::task<bool> reach(int n, runtime::Clock::duration timeout) {
    return until(changed_, timeout, [this, n] { return count_ >= n; });
  }

 private:
  int count_ = 0;
  runtime::Event changed_;
};

}  // namespace storeapi::testing
