// runtime::Pool: objects are lent and come back warm, counted per thread, and those too
// large to keep are freed instead.
#include "runtime/object_pool.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace storeapi::runtime {
namespace {

struct Scratch {
  std::string text;
  bool recycle() noexcept {
    text.clear();
    return text.capacity() <= 1024;
  }
};
using ScratchPool = Pool<Scratch>;

TEST(ObjectPool, ALeaseIsCountedUntilItEnds) {
  std::size_t before = ScratchPool::lent();
  {
    ScratchPool::Lease a = ScratchPool::borrow();
    ScratchPool::Lease b = ScratchPool::borrow();
    EXPECT_EQ(ScratchPool::lent(), before + 2);
    b.end();
    EXPECT_FALSE(b);
    EXPECT_EQ(ScratchPool::lent(), before + 1);
    ScratchPool::Lease moved = std::move(a);
    EXPECT_EQ(ScratchPool::lent(), before + 1);
  }
  EXPECT_EQ(ScratchPool::lent(), before);
}

TEST(ObjectPool, AReturnedObjectComesBackClearedAndWarm) {
  Scratch* first;
  {
    ScratchPool::Lease lease = ScratchPool::borrow();
    lease->text.assign(100, 'x');
    first = &*lease;
  }
  ScratchPool::Lease again = ScratchPool::borrow();
  EXPECT_EQ(&*again, first);
  EXPECT_TRUE(again->text.empty());
  EXPECT_GE(again->text.capacity(), 100u);
}

TEST(ObjectPool, AnObjectThatGrewTooLargeIsNotKept) {
  {
    ScratchPool::Lease lease = ScratchPool::borrow();
    lease->text.assign(4096, 'x');
  }
  ScratchPool::Lease next = ScratchPool::borrow();
  EXPECT_LT(next->text.capacity(), 4096u) << "the large one came back";
}

TEST(ObjectPool, EachThreadCountsItsOwnLeases) {
  ScratchPool::Lease here = ScratchPool::borrow();
  std::size_t there = 99;
  std::thread([&] { there = ScratchPool::lent(); }).join();
  EXPECT_EQ(there, 0u);
}

}  // namespace
}  // namespace storeapi::runtime
