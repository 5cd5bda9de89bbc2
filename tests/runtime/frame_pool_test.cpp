// FramePool: coroutine frames are recycled per thread instead of going back to the heap.
#include "runtime/frame_pool.hpp"

#include <gtest/gtest.h>

#include <array>
#include <thread>

#include "runtime/task.hpp"
#include "support/run_task.hpp"

namespace storeapi::runtime {
namespace {

using testing::sync_wait;

task<int> leaf(int x) { co_return x * 2; }

// Frames of several sizes: a small leaf, a middle one and one with a big local array.
task<int> middle(int x) {
  std::array<char, 2000> scratch{};
  scratch[static_cast<std::size_t>(x) % scratch.size()] = 1;
  co_return co_await leaf(x) + scratch[static_cast<std::size_t>(x) % scratch.size()];
}

task<int> workload(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await middle(i);
  co_return sum;
}

TEST(FramePool, WarmPoolServesFramesWithoutTheHeap) {
  sync_wait(workload(10));  // warm-up: the first frame of each size comes from the heap
  std::uint64_t warm = FramePool::heap_allocations();
  for (int round = 0; round < 100; ++round) sync_wait(workload(100));
  EXPECT_EQ(FramePool::heap_allocations(), warm);
}

TEST(FramePool, FreedFrameIsReusedForTheSameSizeClass) {
  void* first = FramePool::allocate(100);
  FramePool::deallocate(first, 100);
  std::uint64_t before = FramePool::heap_allocations();
  void* second = FramePool::allocate(120);  // same 128-byte class
  EXPECT_EQ(second, first);
  EXPECT_EQ(FramePool::heap_allocations(), before);
  FramePool::deallocate(second, 120);
}

TEST(FramePool, OversizedFramesBypassThePool) {
  std::size_t huge = (std::size_t{1} << FramePool::kMaxShift) + 1;
  std::uint64_t before = FramePool::heap_allocations();
  void* p = FramePool::allocate(huge);
  ASSERT_NE(p, nullptr);
  static_cast<char*>(p)[huge - 1] = 1;  // the whole block is usable
  FramePool::deallocate(p, huge);
  EXPECT_EQ(FramePool::heap_allocations(), before);  // counted only for pooled classes
}

TEST(FramePool, EachThreadHasItsOwnPool) {
  void* here = FramePool::allocate(64);
  FramePool::deallocate(here, 64);
  void* there = nullptr;
  std::thread([&] {
    there = FramePool::allocate(64);
    FramePool::deallocate(there, 64);
  }).join();
  EXPECT_NE(here, there);  // the other thread could not take this thread's free block
  void* again = FramePool::allocate(64);
  EXPECT_EQ(again, here);
  FramePool::deallocate(again, 64);
}

}  // namespace
}  // namespace storeapi::runtime
