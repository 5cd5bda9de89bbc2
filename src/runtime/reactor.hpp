#pragma once
// One Reactor per core: it owns an io_uring, is driven by exactly one thread, and resumes
// the coroutines whose operations completed. Every submission carries a pointer to a
// Completion as user_data; user_data 0 marks completions nobody waits for (linked
// timeouts). Cross-core messages arrive through an eventfd, because they are rare
// (shutdown, cache invalidation) and may come from threads that own no ring.
#include <liburing.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace storeapi::runtime {

struct Completion {
  void (*on_complete)(Completion* self, int res, unsigned flags);
};

class Reactor {
 public:
  struct Options {
    unsigned sq_entries = 4096;
  };

  Reactor(unsigned index, Options options);
  ~Reactor();
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;

  // The reactor driven by the calling thread (set while run() is active).
  static Reactor& current() noexcept;
  static Reactor* current_or_null() noexcept;

  unsigned index() const noexcept { return index_; }

  // A free submission entry, with `count` consecutive free entries so that linked
  // operations are submitted together. When the queue is full it is flushed first:
  // an operation is never dropped.
  io_uring_sqe* get_sqe(unsigned count = 1);

  // Drives completions until stop() is called from this thread (or a posted message).
  // The reactor must be constructed on the thread that runs it (the ring is single-issuer).
  void run();
  void stop() noexcept { stopping_ = true; }

  // Queues `fn` to run on this reactor's thread; callable from any thread.
  void post(std::function<void()> fn);

  // Asks the kernel to cancel the operation whose completion is `target`; the victim still
  // completes (with -ECANCELED, or normally if it was already done).
  void cancel(const Completion* target);
  // Asks the kernel to cancel every operation in flight on `fd` (each completes with
  // -ECANCELED). Operations submitted after this call are not affected: the kernel runs
  // submissions in order.
  void cancel_fd(int fd);

  // Completion-queue overflows observed by the kernel (should stay 0; see docs/PITFALLS.md).
  unsigned cq_overflow() const noexcept;

 private:
  void arm_wakeup();
  static void on_wakeup(Completion* self, int res, unsigned flags);
  void drain_posted();

  unsigned index_;
  io_uring ring_{};
  bool stopping_ = false;

  struct WakeCompletion : Completion {
    Reactor* reactor;
  };
  int wake_fd_ = -1;
  std::uint64_t wake_value_ = 0;
  WakeCompletion wake_completion_{{&Reactor::on_wakeup}, this};
  std::mutex posted_mutex_;
  std::deque<std::function<void()>> posted_;
};

}  // namespace storeapi::runtime
