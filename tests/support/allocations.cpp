#include "support/allocations.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> count{0};
}

std::size_t storeapi::testing::allocation_count() { return count.load(std::memory_order_relaxed); }

#ifdef __SANITIZE_ADDRESS__
bool storeapi::testing::allocations_counted() { return false; }
#else
bool storeapi::testing::allocations_counted() { return true; }

// libstdc++'s array and nothrow forms call these; the aligned forms are not used by the
// code under test.
void* operator new(std::size_t size) {
  count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif
