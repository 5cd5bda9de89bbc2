// runtime::Gate: closing waits for every holder, refuses newcomers, and opens again.
#include "runtime/gate.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "runtime/io.hpp"
#include "runtime/spawn.hpp"
#include "support/run_task.hpp"

namespace storeapi::runtime {
namespace {

using namespace std::chrono_literals;
using testing::run_task;

// Holds the gate across a few iterations, then notes that it left.
task<void> hold([[maybe_unused]] Gate::Holder holder, std::vector<int>& log, int who, Clock::duration for_) {
  co_await sleep_for(for_);
  log.push_back(who);
}

TEST(Gate, CloseResumesOnlyOnceTheLastHolderLeft) {
  Reactor reactor(0, {});
  Gate gate;
  std::vector<int> log;
  run_task(reactor, [&]() -> task<void> {
    spawn(hold(gate.enter(), log, 1, 5ms));
    spawn(hold(gate.enter(), log, 2, 15ms));
    EXPECT_EQ(gate.holders(), 2u);
    co_await gate.close();
    log.push_back(0);
  }());
  EXPECT_EQ(log, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(gate.state(), Gate::State::closed);
}

TEST(Gate, ClosingRefusesNewcomers) {
  Reactor reactor(0, {});
  Gate gate;
  std::vector<int> log;
  run_task(reactor, [&]() -> task<void> {
    spawn(hold(gate.enter(), log, 1, 5ms));
    spawn([](Gate& g) -> task<void> {
      co_await sleep_for(1ms);
      EXPECT_EQ(g.state(), Gate::State::closing);
      EXPECT_FALSE(g.enter());
    }(gate));
    co_await gate.close();
  }());
  EXPECT_EQ(log, (std::vector<int>{1}));
}

TEST(Gate, CloseWithoutHoldersEndsAtOnceAndReopenAdmitsAgain) {
  Reactor reactor(0, {});
  Gate gate;
  run_task(reactor, [&]() -> task<void> {
    co_await gate.close();
    EXPECT_EQ(gate.state(), Gate::State::closed);
    EXPECT_FALSE(gate.enter());
    gate.reopen();
    Gate::Holder held = gate.enter();
    EXPECT_TRUE(held);
    held.leave();
    EXPECT_EQ(gate.holders(), 0u);
  }());
}

TEST(Gate, AMovedHolderLeavesOnce) {
  Gate gate;
  {
    Gate::Holder a = gate.enter();
    Gate::Holder b = std::move(a);
    EXPECT_FALSE(a);
    EXPECT_EQ(gate.holders(), 1u);
  }
  EXPECT_EQ(gate.holders(), 0u);
}

}  // namespace
}  // namespace storeapi::runtime
