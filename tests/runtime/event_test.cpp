// runtime::Event: who wakes whom (the oldest waiter, or every one), never inline, with a
// deadline or without, when the event or a waiting frame goes away, and from another core.
#include "runtime/event.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "runtime/cores.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"
#include "support/poll.hpp"
#include "support/run_task.hpp"

namespace storeapi::runtime {
namespace {

using namespace std::chrono_literals;
using testing::run_task;

// Waits on `event` and appends its number and how the wait ended to `log`.
struct Entry {
  int who;
  Woken how;
};
task<void> waiter(Event& event, int who, std::vector<Entry>& log) {
  log.push_back({who, co_await event.wait()});
}

// Lets every wake-up queued so far run: they resume at the end of the loop iteration.
task<void> next_iterations() {
  co_await sleep_for(1ms);
  co_await sleep_for(1ms);
}

TEST(Event, SignalWakesTheOldestWaiterOnlyAndBroadcastTheRest) {
  Reactor reactor(0, {});
  Event event;
  std::vector<Entry> log;
  run_task(reactor, [&]() -> task<void> {
    for (int who = 1; who <= 3; ++who) spawn(waiter(event, who, log));
    event.signal();
    co_await next_iterations();
    EXPECT_EQ(log.size(), 1u);
    EXPECT_TRUE(event.has_waiters());
    event.broadcast();
    co_await next_iterations();
    EXPECT_FALSE(event.has_waiters());
  }());
  ASSERT_EQ(log.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(log[i].who, i + 1);
    EXPECT_EQ(log[i].how, Woken::signalled);
  }
}

TEST(Event, TheSignallerFinishesBeforeTheWaiterResumes) {
  Reactor reactor(0, {});
  Event event;
  std::vector<Entry> log;
  run_task(reactor, [&]() -> task<void> {
    spawn(waiter(event, 1, log));
    event.signal();
    EXPECT_TRUE(log.empty());  // resumed at the end of the iteration, not inside signal()
    co_await next_iterations();
    EXPECT_EQ(log.size(), 1u);
  }());
}

TEST(Event, SignalWithoutWaitersIsLost) {
  Reactor reactor(0, {});
  Event event;
  Woken how = run_task(reactor, [&]() -> task<Woken> {
    event.signal();
    co_return co_await event.wait_for(20ms);
  }());
  EXPECT_EQ(how, Woken::timed_out);
}

TEST(Event, ADeadlineEndsTheWaitWhenNobodySignals) {
  Reactor reactor(0, {});
  Event event;
  const auto start = Clock::now();
  Woken how = run_task(reactor, [&]() -> task<Woken> { co_return co_await event.wait_for(30ms); }());
  EXPECT_EQ(how, Woken::timed_out);
  EXPECT_GE(Clock::now() - start, 30ms);  // never early
  EXPECT_FALSE(event.has_waiters());
}

TEST(Event, ADeadlineAlreadyPastDoesNotSuspend) {
  Reactor reactor(0, {});
  Event event;
  Woken how = run_task(reactor, [&]() -> task<Woken> { co_return co_await event.wait_until(Clock::now() - 1ms); }());
  EXPECT_EQ(how, Woken::timed_out);
  EXPECT_FALSE(event.has_waiters());
}

TEST(Event, ASignalBeforeTheDeadlineWinsAndCancelsTheTimer) {
  Reactor reactor(0, {});
  Event event;
  const auto start = Clock::now();
  Woken how = run_task(reactor, [&]() -> task<Woken> {
    spawn([](Event& e) -> task<void> {
      co_await sleep_for(5ms);
      e.signal();
    }(event));
    co_return co_await event.wait_for(60s);
  }());
  EXPECT_EQ(how, Woken::signalled);
  EXPECT_LT(Clock::now() - start, 30s);  // not the deadline: the cancelled timer resumed it
}

TEST(Event, DestroyingTheEventBreaksEveryWait) {
  Reactor reactor(0, {});
  std::vector<Entry> log;
  Woken with_deadline = Woken::signalled;
  run_task(reactor, [&]() -> task<void> {
    {
      Event event;
      spawn(waiter(event, 1, log));
      spawn([](Event& e, Woken& out) -> task<void> { out = co_await e.wait_for(60s); }(event, with_deadline));
    }
    co_await next_iterations();
  }());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].how, Woken::broken);
  EXPECT_EQ(with_deadline, Woken::broken);
}

TEST(Event, AnEventThatOutlivesItsReactorLeavesItsWaitersAlone) {
  Event event;  // like a pool kept beyond the reactor that ran it
  std::vector<Entry> log;
  {
    Reactor reactor(0, {});
    run_task(reactor, [&]() -> task<void> {
      spawn(waiter(event, 1, log));
      co_return;
    }());
  }
  // ~Event must not reach the reactor that is gone (AddressSanitizer holds it to that).
  EXPECT_TRUE(event.has_waiters());
}

TEST(Event, AWaitingFrameDestroyedLeavesTheEvent) {
  Reactor reactor(0, {});
  Event event;
  std::vector<Entry> log;
  run_task(reactor, [&]() -> task<void> {
    // Started by hand so that the test owns the suspended frame.
    auto linked = waiter(event, 1, log).release();
    linked.resume();
    EXPECT_TRUE(event.has_waiters());
    linked.destroy();
    EXPECT_FALSE(event.has_waiters());

    // Woken, its resumption queued, then destroyed: the reactor must not resume it.
    auto woken = waiter(event, 2, log).release();
    woken.resume();
    event.signal();
    woken.destroy();
    co_await next_iterations();
  }());
  EXPECT_TRUE(log.empty());
}

TEST(Event, AnotherCoreWakesAWaiterByPostingToItsCore) {
  std::atomic<int> result{-1};
  std::atomic<bool> waiting{false};
  Event* event = nullptr;  // core 1's, made and used on its thread only
  Cores cores(2, [&](Reactor& r) {
    if (r.index() != 1) return;
    event = new Event;
    spawn([](Event& e, std::atomic<bool>& waiting, std::atomic<int>& result) -> task<void> {
      waiting = true;
      result = static_cast<int>(co_await e.wait_for(60s));
    }(*event, waiting, result));
  });
  ASSERT_TRUE(testing::eventually([&] { return waiting.load(); }));
  cores.post_to(0, [&] { cores.post_to(1, [&] { event->signal(); }); });
  EXPECT_TRUE(testing::eventually([&] { return result.load() != -1; }));
  EXPECT_EQ(result.load(), static_cast<int>(Woken::signalled));
  cores.post_to(1, [&] { delete event; });
  cores.post_all([](Reactor& r) { r.stop(); });
  cores.join();
}

}  // namespace
}  // namespace storeapi::runtime
