#pragma once
// task<T>: a lazy coroutine that starts when awaited and resumes its awaiter by symmetric
// transfer when it finishes, so chains of awaits never grow the stack. Frames come from
// the per-core FramePool. Exceptions propagate to the awaiter.
// GCC 12 makes the transfer a real tail call only at -O2 and above, and not under
// AddressSanitizer/ThreadSanitizer: in such builds a long run of awaits that complete at
// once (e.g. a deep pipeline of requests answered without I/O) grows the stack.
#include <coroutine>
#include <exception>
#include <utility>
#include <variant>

#include "runtime/frame_pool.hpp"

namespace storeapi::runtime {

template <class T = void>
class task;

namespace detail {

struct TaskPromiseBase : PooledFrame {
  std::coroutine_handle<> continuation = std::noop_coroutine();

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
};

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::variant<std::monostate, T, std::exception_ptr> result;

  task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& value) {
    result.template emplace<1>(std::forward<U>(value));
  }
  void unhandled_exception() noexcept { result.template emplace<2>(std::current_exception()); }

  T take() {
    if (result.index() == 2) std::rethrow_exception(std::get<2>(result));
    return std::move(std::get<1>(result));
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  std::exception_ptr error;

  task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void unhandled_exception() noexcept { error = std::current_exception(); }

  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using handle_type = std::coroutine_handle<promise_type>;

  task() noexcept = default;
  explicit task(handle_type h) noexcept : handle_(h) {}
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (handle_) handle_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
    handle_.promise().continuation = awaiter;
    return handle_;
  }
  T await_resume() { return handle_.promise().take(); }

  // For the scheduler: release ownership of the frame.
  handle_type release() noexcept { return std::exchange(handle_, {}); }

 private:
  handle_type handle_;
};

namespace detail {
template <class T>
task<T> TaskPromise<T>::get_return_object() noexcept {
  return task<T>{std::coroutine_handle<TaskPromise<T>>::from_promise(*this)};
}
inline task<void> TaskPromise<void>::get_return_object() noexcept {
  return task<void>{std::coroutine_handle<TaskPromise<void>>::from_promise(*this)};
}
}  // namespace detail

}  // namespace storeapi::runtime
