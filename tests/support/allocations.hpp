#pragma once
// Counts global heap allocations, so tests can check that a warm hot path allocates nothing.
// Linking allocations.cpp into a test binary replaces operator new for the whole binary,
// except in AddressSanitizer builds, whose allocator must stay in charge.
#include <cstddef>

namespace storeapi::testing {

// False in AddressSanitizer builds; allocation tests skip themselves then.
bool allocations_counted();

// Number of operator new calls so far in this process.
std::size_t allocation_count();

// Number of allocations `work` makes.
template <class Work>
std::size_t allocations_during(Work&& work) {
  const std::size_t before = allocation_count();
  work();
  return allocation_count() - before;
}

}  // namespace storeapi::testing
