#include "runtime/frame_pool.hpp"

#include <bit>
#include <new>

namespace storeapi::runtime {
namespace {

struct FreeNode {
  FreeNode* next;
};

struct ThreadPool {
  FreeNode* heads[FramePool::kClasses] = {};
  std::uint64_t heap_allocations = 0;

  ~ThreadPool() {
    for (FreeNode*& head : heads) {
      while (head) {
        FreeNode* next = head->next;
        ::operator delete(head);
        head = next;
      }
    }
  }
};

thread_local ThreadPool tls_pool;

}  // namespace

std::size_t FramePool::class_of(std::size_t size) noexcept {
  std::size_t shift = size <= (std::size_t{1} << kMinShift) ? kMinShift : std::bit_width(size - 1);
  return shift - kMinShift;
}

void* FramePool::allocate(std::size_t size) {
  std::size_t c = class_of(size);
  if (c >= kClasses) return ::operator new(size);
  FreeNode*& head = tls_pool.heads[c];
  if (head) {
    FreeNode* node = head;
    head = node->next;
    return node;
  }
  ++tls_pool.heap_allocations;
  return ::operator new(std::size_t{1} << (c + kMinShift));
}

void FramePool::deallocate(void* p, std::size_t size) noexcept {
  std::size_t c = class_of(size);
  if (c >= kClasses) {
    ::operator delete(p);
    return;
  }
  auto* node = static_cast<FreeNode*>(p);
  node->next = tls_pool.heads[c];
  tls_pool.heads[c] = node;
}

std::uint64_t FramePool::heap_allocations() noexcept { return tls_pool.heap_allocations; }

}  // namespace storeapi::runtime
