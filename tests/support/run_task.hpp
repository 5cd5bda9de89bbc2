#pragma once
// Driving tasks to completion from a test's thread: sync_wait for tasks that never
// suspend on I/O, run_task for tasks that need a Reactor (run on the calling thread), and
// run_on_reactor for code that must run inside a core (the database pool, the
// authenticator) on a reactor of its own.
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "runtime/reactor.hpp"
#include "runtime/spawn.hpp"
#include "runtime/task.hpp"

namespace storeapi::testing {

namespace detail {

// Holds a task's outcome: its value (or completion, for void) or its exception.
template <class T>
struct Outcome {
  std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
  std::exception_ptr error;

  T get() {
    if (error) std::rethrow_exception(error);
    if (!value) throw std::logic_error("the task did not finish");
    if constexpr (!std::is_void_v<T>) return std::move(*value);
  }
};

template <class T>
runtime::task<void> capture(runtime::task<T> t, Outcome<T>& out, runtime::Reactor* stop_when_done) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(t);
      out.value = true;
    } else {
      out.value.emplace(co_await std::move(t));
    }
  } catch (...) {
    out.error = std::current_exception();
  }
  if (stop_when_done) stop_when_done->stop();
}

}  // namespace detail

// Runs `t` on the calling thread; it must finish without waiting for any operation.
template <class T>
T sync_wait(runtime::task<T> t) {
  detail::Outcome<T> out;
  runtime::spawn(detail::capture(std::move(t), out, nullptr));
  return out.get();
}

// Runs `reactor` on the calling thread until `t` finished, then returns its result. A
// Reactor runs once: use a fresh one per call.
template <class T>
T run_task(runtime::Reactor& reactor, runtime::task<T> t) {
  detail::Outcome<T> out;
  reactor.post([&] { runtime::spawn(detail::capture(std::move(t), out, &reactor)); });
  reactor.run();
  return out.get();
}

// Runs the task `body` makes on a fresh Reactor driven by the calling thread; returns once
// it has finished, rethrowing what it threw. Whatever `body` started (pool connections)
// may still be suspended in that reactor: keep such objects alive beyond this call.
inline void run_on_reactor(const std::function<runtime::task<void>()>& body) {
  runtime::Reactor reactor(0, {});
  run_task(reactor, body());
}

}  // namespace storeapi::testing
