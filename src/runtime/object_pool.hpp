#pragma once
// Per-thread pools of objects that a core lends to its connections only while they are
// busy, so that an idle connection holds none (its receive and response buffers). Like the
// frame pool, a pool needs no synchronisation: a connection never leaves its core. A
// returned object keeps its warm capacity for the next borrower unless T::recycle() says
// it grew too large; at most kKept objects wait in a thread's pool, so a burst of busy
// connections does not pin its peak memory for ever.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace storeapi::runtime {

// T: default-constructible, with `bool recycle() noexcept` that clears it for the next
// borrower and answers whether it is worth keeping.
template <class T>
class Pool {
 public:
  static constexpr std::size_t kKept = 256;

  // An object on loan; returned to the pool when the lease ends. Empty when default-made.
  class Lease {
   public:
    Lease() noexcept = default;
    Lease(Lease&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
    Lease& operator=(Lease&& other) noexcept {
      if (this != &other) {
        end();
        object_ = std::exchange(other.object_, nullptr);
      }
      return *this;
    }
    ~Lease() { end(); }

    explicit operator bool() const noexcept { return object_ != nullptr; }
    T& operator*() const noexcept { return *object_; }
    T* operator->() const noexcept { return object_; }
    void end() noexcept {
      if (object_) Pool::give_back(std::exchange(object_, nullptr));
    }

   private:
    friend class Pool;
    explicit Lease(T* object) noexcept : object_(object) {}
    T* object_ = nullptr;
  };

  static Lease borrow() {
    State& s = state();
    T* object;
    if (s.idle.empty()) {
      object = new T();
    } else {
      object = s.idle.back().release();
      s.idle.pop_back();
    }
    ++s.lent;
    return Lease(object);
  }

  // Objects on loan from the calling thread's pool.
  static std::size_t lent() noexcept { return state().lent; }

 private:
  struct State {
    std::vector<std::unique_ptr<T>> idle;
    std::size_t lent = 0;
  };
  static State& state() noexcept {
    static thread_local State s;
    return s;
  }
  static void give_back(T* object) noexcept {
    State& s = state();
    --s.lent;
    std::unique_ptr<T> owned(object);
    if (object->recycle() && s.idle.size() < kKept) {
      if (s.idle.capacity() == 0) s.idle.reserve(kKept);  // push_back below never throws then
      s.idle.push_back(std::move(owned));
    }
  }
};

}  // namespace storeapi::runtime
