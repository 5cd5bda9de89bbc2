// Reactor and its awaitable operations: timers, socket I/O, deadlines, cancellation,
// cross-thread posts, and a submission queue smaller than the work given to it.
#include "runtime/reactor.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "runtime/io.hpp"
#include "runtime/spawn.hpp"
#include "support/run_task.hpp"
#include "support/socket_pair.hpp"

namespace storeapi::runtime {
namespace {

using namespace std::chrono_literals;
using testing::run_task;
using testing::SocketPair;

// Awaits `condition` by sleeping in small steps; false if it did not hold within 10 s.
template <class Condition>
task<bool> wait_until(Condition condition) {
  auto deadline = Clock::now() + 10s;
  while (!condition()) {
    if (Clock::now() > deadline) co_return false;
    co_await sleep_for(1ms);
  }
  co_return true;
}

TEST(Reactor, SleepForResumesAfterTheDuration) {
  Reactor reactor(0, {});
  auto start = Clock::now();
  int res = run_task(reactor, []() -> task<int> { co_return co_await sleep_for(20ms); }());
  EXPECT_EQ(res, -ETIME);
  EXPECT_GE(Clock::now() - start, 20ms);  // never early (late is fine on a busy machine)
}

TEST(Reactor, SendAndRecvOnASocketPair) {
  Reactor reactor(0, {});
  SocketPair pair;
  std::string got = run_task(reactor, [&]() -> task<std::string> {
    int sent = co_await send(pair.a, "hello", 5);
    EXPECT_EQ(sent, 5);
    char buf[16];
    int n = co_await recv(pair.b, buf, sizeof buf);
    co_return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  }());
  EXPECT_EQ(got, "hello");
}

TEST(Reactor, RecvSeesThePeerClosing) {
  Reactor reactor(0, {});
  SocketPair pair;
  ::shutdown(pair.a, SHUT_WR);
  int n = run_task(reactor, [&]() -> task<int> {
    char buf[8];
    co_return co_await recv(pair.b, buf, sizeof buf);
  }());
  EXPECT_EQ(n, 0);
}

TEST(Reactor, RecvEndsWithECanceledWhenItsDeadlinePasses) {
  Reactor reactor(0, {});
  SocketPair pair;
  auto start = Clock::now();
  int n = run_task(reactor, [&]() -> task<int> {
    char buf[8];
    Deadline deadline = Deadline::after(50ms);
    co_return co_await recv(pair.b, buf, sizeof buf, &deadline);
  }());
  EXPECT_EQ(n, -ECANCELED);
  EXPECT_GE(Clock::now() - start, 50ms);
}

TEST(Reactor, RecvBeforeItsDeadlineIsNotDisturbedByTheTimerLater) {
  Reactor reactor(0, {});
  SocketPair pair;
  std::string got = run_task(reactor, [&]() -> task<std::string> {
    char buf[8];
    EXPECT_EQ(::write(pair.a, "x", 1), 1);
    Deadline deadline = Deadline::after(20ms);
    int first = co_await recv(pair.b, buf, sizeof buf, &deadline);
    co_await sleep_for(40ms);  // past the first deadline
    EXPECT_EQ(::write(pair.a, "y", 1), 1);
    int second = co_await recv(pair.b, buf + 1, sizeof buf - 1);
    co_return std::to_string(first) + std::to_string(second) + std::string(buf, 2);
  }());
  EXPECT_EQ(got, "11xy");
}

TEST(Reactor, CancelFdResumesTheVictimExactlyOnce) {
  Reactor reactor(0, {});
  SocketPair pair;
  int resumes = 0;
  int victim_result = 1;
  auto victim = [&]() -> task<void> {
    char buf[8];
    victim_result = co_await recv(pair.b, buf, sizeof buf);
    ++resumes;
  };
  auto test = [&]() -> task<void> {
    spawn(victim());  // now suspended in its recv
    int cancelled = co_await CancelFd(pair.b);
    EXPECT_EQ(cancelled, 1);
    // The victim's -ECANCELED and the cancel's own result come in either order.
    EXPECT_TRUE(co_await wait_until([&] { return resumes > 0; }));
    // The cancelled recv must not take data sent afterwards: a new recv gets it.
    EXPECT_EQ(::write(pair.a, "z", 1), 1);
    char buf[8];
    int n = co_await recv(pair.b, buf, sizeof buf);
    EXPECT_EQ(n, 1);
    EXPECT_EQ(buf[0], 'z');
    co_await sleep_for(20ms);  // room for a stray second completion to show up
  };
  run_task(reactor, test());
  EXPECT_EQ(victim_result, -ECANCELED);
  EXPECT_EQ(resumes, 1);
}

TEST(Reactor, CancelFdWithNothingInFlightCancelsNothing) {
  Reactor reactor(0, {});
  SocketPair pair;
  int res = run_task(reactor, [&]() -> task<int> { co_return co_await CancelFd(pair.b); }());
  EXPECT_EQ(res, 0);
}

// The safe way to close a socket with a recv in flight (docs/PITFALLS.md): cancel, wait for the
// victim, then close. A socket that gets the same number afterwards sees only its own data.
TEST(Reactor, ReusedFdNumberIsNotAffectedByTheCancelledRecv) {
  Reactor reactor(0, {});
  auto old_pair = std::make_unique<SocketPair>();
  int old_fd = old_pair->b;
  int victim_result = 1;
  auto victim = [&]() -> task<void> {
    char buf[8];
    victim_result = co_await recv(old_fd, buf, sizeof buf);
  };
  std::string got = run_task(reactor, [&]() -> task<std::string> {
    spawn(victim());
    co_await CancelFd(old_fd);
    EXPECT_TRUE(co_await wait_until([&] { return victim_result <= 0; }));
    old_pair.reset();
    SocketPair fresh;  // takes the lowest free numbers: the old ones
    EXPECT_TRUE(fresh.a == old_fd || fresh.b == old_fd);
    int reader = fresh.a == old_fd ? fresh.a : fresh.b;
    int writer = reader == fresh.a ? fresh.b : fresh.a;
    EXPECT_EQ(::write(writer, "new", 3), 3);
    char buf[8];
    int n = co_await recv(reader, buf, sizeof buf);
    co_return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  }());
  EXPECT_EQ(victim_result, -ECANCELED);
  EXPECT_EQ(got, "new");
}

TEST(Reactor, PostFromAnotherThreadRunsOnTheReactorThread) {
  Reactor reactor(0, {});
  std::thread::id ran_on;
  std::thread poster([&] {
    reactor.post([&] {
      ran_on = std::this_thread::get_id();
      reactor.stop();
    });
  });
  reactor.run();
  poster.join();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(Reactor, EveryPostFromManyThreadsRunsOnce) {
  Reactor reactor(0, {});
  constexpr int kThreads = 4, kPosts = 2000;
  int ran = 0;  // touched only on the reactor thread
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; ++t)
    posters.emplace_back([&] {
      for (int i = 0; i < kPosts; ++i)
        reactor.post([&] {
          if (++ran == kThreads * kPosts) reactor.stop();
        });
    });
  reactor.run();
  for (auto& t : posters) t.join();
  EXPECT_EQ(ran, kThreads * kPosts);
}

TEST(Reactor, CurrentIsTheReactorRunningOnThisThread) {
  Reactor reactor(3, {});
  EXPECT_EQ(Reactor::current_or_null(), nullptr);
  Reactor* seen = nullptr;
  reactor.post([&] {
    seen = Reactor::current_or_null();
    reactor.stop();
  });
  reactor.run();
  EXPECT_EQ(seen, &reactor);
  EXPECT_EQ(seen->index(), 3u);
  EXPECT_EQ(Reactor::current_or_null(), nullptr);
}

// Completions that arrive together are handled first; a hook each of them queued runs
// once, after all of them (auth/fleet_batch.hpp sends one Redis call per iteration so).
TEST(Reactor, IterationEndRunsOnceAfterTheCompletionsThatQueuedIt) {
  Reactor reactor(0, {});
  struct Hook : IterationEnd {
    int runs = 0;
    int handled_when_run = -1;
    int* handled = nullptr;
  } hook;
  int handled = 0;
  hook.handled = &handled;
  hook.run = [](IterationEnd* self) {
    auto* h = static_cast<Hook*>(self);
    ++h->runs;
    h->handled_when_run = *h->handled;
  };
  constexpr int kTogether = 5;
  // kTogether NOPs submitted together complete in one iteration.
  struct Nop : Completion {
    Hook* hook;
    int* handled;
  } nop{{[](Completion* self, int, unsigned) {
          auto* n = static_cast<Nop*>(self);
          ++*n->handled;
          Reactor::current().at_iteration_end(*n->hook);
        }},
        &hook, &handled};
  bool ran = run_task(reactor, [&]() -> task<bool> {
    for (int i = 0; i < kTogether; ++i) {
      io_uring_sqe* sqe = reactor.get_sqe();
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data(sqe, &nop);
    }
    co_return co_await wait_until([&] { return hook.runs > 0; });
  }());
  EXPECT_TRUE(ran);
  EXPECT_EQ(hook.runs, 1);
  EXPECT_EQ(hook.handled_when_run, kTogether);
}

TEST(Reactor, AForgottenIterationEndDoesNotRun) {
  Reactor reactor(0, {});
  struct Hook : IterationEnd {
    int runs = 0;
  } forgotten, kept;
  forgotten.run = kept.run = [](IterationEnd* self) { ++static_cast<Hook*>(self)->runs; };
  run_task(reactor, [&]() -> task<void> {
    reactor.at_iteration_end(forgotten);
    reactor.at_iteration_end(kept);
    reactor.forget(forgotten);
    co_await sleep_for(1ms);  // an iteration ends meanwhile
  }());
  EXPECT_EQ(forgotten.runs, 0);
  EXPECT_EQ(kept.runs, 1);
}

// Far more operations than submission entries, linked pairs (recv + deadline) included:
// the reactor must flush a full queue and never drop an operation.
TEST(Reactor, MoreOperationsThanSubmissionEntries) {
  Reactor reactor(0, {.sq_entries = 8});
  SocketPair pair;
  constexpr int kEach = 300;
  int slept = 0, timed_out = 0;
  auto sleeper = [&]() -> task<void> {
    if (co_await sleep_for(1ms) == -ETIME) ++slept;
  };
  auto waiter = [&]() -> task<void> {
    char buf[8];
    Deadline deadline = Deadline::after(5ms);
    if (co_await recv(pair.b, buf, sizeof buf, &deadline) == -ECANCELED) ++timed_out;
  };
  bool all_done = run_task(reactor, [&]() -> task<bool> {
    for (int i = 0; i < kEach; ++i) {
      spawn(sleeper());
      spawn(waiter());
    }
    co_return co_await wait_until([&] { return slept + timed_out == 2 * kEach; });
  }());
  EXPECT_TRUE(all_done);
  EXPECT_EQ(slept, kEach);
  EXPECT_EQ(timed_out, kEach);
  EXPECT_EQ(reactor.cq_overflow(), 0u);  // no completion was dropped on the way
}

// Far more completions than the completion queue holds, all submitted by one handler that
// never yields (so nothing reaps in between): get_sqe must keep submitting rather than
// spin on -EBUSY, and every completion must still be delivered, none dropped.
TEST(Reactor, SubmitsMoreCompletionsThanTheQueueHoldsWithoutReaping) {
  Reactor reactor(0, {.sq_entries = 8});  // completion queue: 64 entries
  constexpr int kOperations = 64 * 50;
  struct Counter : Completion {
    int delivered = 0;
  } counter{{[](Completion* self, int, unsigned) { ++static_cast<Counter*>(self)->delivered; }}};
  std::atomic<bool> submitted{false};
  bool all_delivered = run_task(reactor, [&]() -> task<bool> {
    for (int i = 0; i < kOperations; ++i) {
      io_uring_sqe* sqe = reactor.get_sqe();
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data(sqe, &counter);
    }
    submitted = true;
    co_return co_await wait_until([&] { return counter.delivered == kOperations; });
  }());
  EXPECT_TRUE(submitted);
  EXPECT_TRUE(all_delivered) << counter.delivered << " of " << kOperations;
  EXPECT_EQ(reactor.cq_overflow(), 0u);
}

}  // namespace
}  // namespace storeapi::runtime
