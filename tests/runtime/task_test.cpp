// task<T>: results, exceptions, ownership and symmetric transfer.
#include "runtime/task.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "support/run_task.hpp"

namespace storeapi::runtime {
namespace {

using testing::sync_wait;

task<int> answer() { co_return 42; }

task<int> add_one(int x) { co_return x + 1; }

TEST(Task, ReturnsAValue) { EXPECT_EQ(sync_wait(answer()), 42); }

TEST(Task, AwaitsAnotherTask) {
  auto outer = []() -> task<int> { co_return co_await add_one(co_await answer()); };
  EXPECT_EQ(sync_wait(outer()), 43);
}

TEST(Task, VoidTaskRunsToTheEnd) {
  int steps = 0;
  auto inner = [&]() -> task<void> {
    ++steps;
    co_return;
  };
  auto outer = [&]() -> task<void> {
    co_await inner();
    co_await inner();
    ++steps;
  };
  sync_wait(outer());
  EXPECT_EQ(steps, 3);
}

TEST(Task, IsLazy) {
  bool ran = false;
  auto body = [&]() -> task<void> {
    ran = true;
    co_return;
  };
  task<void> t = body();
  EXPECT_FALSE(ran);
  sync_wait(std::move(t));
  EXPECT_TRUE(ran);
}

TEST(Task, MoveOnlyResult) {
  auto make = []() -> task<std::unique_ptr<std::string>> { co_return std::make_unique<std::string>("moved"); };
  auto outer = [&]() -> task<std::unique_ptr<std::string>> {
    std::unique_ptr<std::string> s = co_await make();
    *s += " twice";
    co_return s;
  };
  std::unique_ptr<std::string> result = sync_wait(outer());
  ASSERT_TRUE(result);
  EXPECT_EQ(*result, "moved twice");
}

TEST(Task, ExceptionPropagatesToTheAwaiter) {
  auto failing = []() -> task<int> {
    throw std::runtime_error("boom");
    co_return 0;
  };
  auto outer = [&]() -> task<std::string> {
    try {
      co_await failing();
    } catch (const std::runtime_error& e) {
      co_return std::string("caught ") + e.what();
    }
    co_return "not thrown";
  };
  EXPECT_EQ(sync_wait(outer()), "caught boom");
}

TEST(Task, ExceptionCrossesSeveralLevels) {
  auto failing = []() -> task<void> {
    throw std::logic_error("deep");
    co_return;
  };
  auto middle = [&]() -> task<int> {
    co_await failing();
    co_return 1;
  };
  auto outer = [&]() -> task<int> { co_return co_await middle(); };
  EXPECT_THROW(sync_wait(outer()), std::logic_error);
}

TEST(Task, DestroyingAnUnstartedTaskFreesItsFrame) {
  auto keep = std::make_shared<int>(7);
  {
    auto holder = [](std::shared_ptr<int> p) -> task<int> { co_return *p; };
    task<int> t = holder(keep);
    EXPECT_EQ(keep.use_count(), 2);  // the copy lives in the frame
  }
  EXPECT_EQ(keep.use_count(), 1);
}

TEST(Task, MoveAssignmentFreesTheReplacedFrame) {
  auto keep = std::make_shared<int>(7);
  auto holder = [](std::shared_ptr<int> p) -> task<int> { co_return *p; };
  task<int> t = holder(keep);
  EXPECT_EQ(keep.use_count(), 2);
  t = answer();
  EXPECT_EQ(keep.use_count(), 1);
  EXPECT_EQ(sync_wait(std::move(t)), 42);
}

// GCC turns symmetric transfer into a tail call at -O2 (every build of this project) but
// not at -O0/-O1 nor under AddressSanitizer or ThreadSanitizer, which keep each frame: there
// the stack tests below would overflow for reasons of the toolchain, not of task<T>.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKIP_WITHOUT_TAIL_CALLS() GTEST_SKIP() << "no guaranteed tail calls under sanitizers"
#else
#define SKIP_WITHOUT_TAIL_CALLS() static_cast<void>(0)
#endif

// Each co_await of a task that completes at once resumes the awaiter from the final
// suspend point. Without symmetric transfer every one of these would nest a stack frame
// and a million of them would overflow the stack.
TEST(Task, AMillionSynchronousAwaitsDoNotGrowTheStack) {
  SKIP_WITHOUT_TAIL_CALLS();
  auto loop = []() -> task<long> {
    long sum = 0;
    for (int i = 0; i < 1'000'000; ++i) sum += co_await add_one(0);
    co_return sum;
  };
  EXPECT_EQ(sync_wait(loop()), 1'000'000);
}

task<int> depth(int n) {
  if (n == 0) co_return 0;
  co_return 1 + co_await depth(n - 1);
}

TEST(Task, DeepRecursionDoesNotGrowTheStack) {
  SKIP_WITHOUT_TAIL_CALLS();
  EXPECT_EQ(sync_wait(depth(200'000)), 200'000);
}

}  // namespace
}  // namespace storeapi::runtime
