#pragma once
// Per-thread pools of objects that a core lends to its connections only while they are
// busy, so that an idle connection holds none (its receive and response buffers). Like the
// frame pool, a pool needs no synchronisation: a connection never leaves its core. A
// returned object keeps its warm capacity for the next borrower unless T::recycle() says
// it grew too large; at most kKept objects and kKeptBytes of their capacity wait in a
// thread's pool, so a burst of busy connections does not pin its peak memory for ever.
// The byte budget is what bounds memory after a stall: a stall leaves many requests
// waiting at once, so objects deep in the pool, which steady traffic never reaches, are
// borrowed, each grows to whatever response it happens to serve, and with a count alone
// they would be kept at that size; every later stall ratchets them further (the server's
// heap grew by 0.3-1.8 MiB per 3 s stall under the soak's traffic). Within the budget
// they still ratchet up to it, stall after stall, so trim() frees what waited unborrowed
// since the previous trim: a pool trimmed periodically comes back to what steady traffic
// uses within two periods of a burst.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace storeapi::runtime {

// T: default-constructible, with `bool recycle() noexcept` that clears it for the next
// borrower and answers whether it is worth keeping, and `std::size_t retained_bytes()
// const noexcept`: the heap capacity it holds once cleared.
template <class T>
class Pool {
 public:
  static constexpr std::size_t kKept = 256;
  // Per thread and pool: about 8 of the largest objects a recycle() keeps (a response's
  // buffers can hold 64 KiB each of output and body), or hundreds of the few-KiB ones most
  // requests need, which is more than a core has requests in flight in steady traffic;
  // beyond it a burst's extra objects are freed.
  static constexpr std::size_t kKeptBytes = std::size_t{1} << 20;

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
      s.kept_bytes -= object->retained_bytes();
      s.unborrowed = std::min(s.unborrowed, s.idle.size());
    }
    ++s.lent;
    return Lease(object);
  }

  // Objects on loan from the calling thread's pool.
  static std::size_t lent() noexcept { return state().lent; }
  // The capacity of the objects waiting in the calling thread's pool.
  static std::size_t kept_bytes() noexcept { return state().kept_bytes; }

  // Frees the objects of the calling thread's pool that nobody borrowed since the previous
  // trim: the bottom of the stack that the pool never came down to. Borrowing takes the
  // most recently returned object first, so those are what a burst left behind.
  static void trim() noexcept {
    State& s = state();
    for (std::size_t i = 0; i < s.unborrowed; ++i) s.kept_bytes -= s.idle[i]->retained_bytes();
    s.idle.erase(s.idle.begin(), s.idle.begin() + static_cast<std::ptrdiff_t>(s.unborrowed));
    s.unborrowed = s.idle.size();
  }

 private:
  struct State {
    std::vector<std::unique_ptr<T>> idle;  // the next borrower takes the back
    std::size_t lent = 0;
    std::size_t kept_bytes = 0;
    // The fewest objects waiting since the previous trim: idle[0, unborrowed) were not
    // borrowed since.
    std::size_t unborrowed = 0;
  };
  static State& state() noexcept {
    static thread_local State s;
    return s;
  }
  static void give_back(T* object) noexcept {
    State& s = state();
    --s.lent;
    std::unique_ptr<T> owned(object);
    if (!object->recycle() || s.idle.size() == kKept) return;
    const std::size_t bytes = object->retained_bytes();
    if (s.kept_bytes + bytes > kKeptBytes) return;
    if (s.idle.capacity() == 0) s.idle.reserve(kKept);  // push_back below never throws then
    s.idle.push_back(std::move(owned));
    s.kept_bytes += bytes;
  }
};

}  // namespace storeapi::runtime
