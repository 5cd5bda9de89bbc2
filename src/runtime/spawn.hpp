#pragma once
// Starts a task<void> without an awaiter. The wrapper frame frees itself when the task
// ends. An exception escaping a detached task is a bug: it is reported and the process
// stops, rather than leaving a connection or a pool in an unknown state.
#include <cstdio>
#include <exception>

#include "runtime/task.hpp"

namespace storeapi::runtime {

namespace detail {
struct Detached {
  struct promise_type : PooledFrame {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept {
      try {
        throw;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fatal: exception escaped a detached task: %s\n", e.what());
      } catch (...) {
        std::fprintf(stderr, "fatal: unknown exception escaped a detached task\n");
      }
      std::terminate();
    }
  };
};

inline Detached run_detached(task<void> t) { co_await std::move(t); }
}  // namespace detail

inline void spawn(task<void> t) { detail::run_detached(std::move(t)); }

}  // namespace storeapi::runtime
