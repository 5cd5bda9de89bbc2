#pragma once
// Per-thread size-class free lists for coroutine frames. Tasks never leave the core that
// created them, so a frame is always freed on the thread that allocated it and the pool
// needs no synchronisation. Once warm, starting a coroutine allocates nothing from the
// global heap. Frames larger than the biggest class go to operator new.
#include <cstddef>
#include <cstdint>

namespace storeapi::runtime {

class FramePool {
 public:
  static void* allocate(std::size_t size);
  static void deallocate(void* p, std::size_t size) noexcept;

  // Frames handed out by the global heap instead of a free list (for tests and tuning).
  static std::uint64_t heap_allocations() noexcept;

  static constexpr std::size_t kMinShift = 6;   // 64 bytes
  static constexpr std::size_t kMaxShift = 14;  // 16 KiB
  static constexpr std::size_t kClasses = kMaxShift - kMinShift + 1;

 private:
  static std::size_t class_of(std::size_t size) noexcept;
};

// Base for coroutine promises: routes frame allocation through the pool.
struct PooledFrame {
  static void* operator new(std::size_t size) { return FramePool::allocate(size); }
  static void operator delete(void* p, std::size_t size) noexcept { FramePool::deallocate(p, size); }
};

}  // namespace storeapi::runtime
