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
#include <memory>
#include <mutex>

#include "runtime/intrusive_list.hpp"

namespace storeapi::runtime {

class BufferRing;

struct Completion {
  void (*on_complete)(Completion* self, int res, unsigned flags);
};

// Work deferred to the end of the loop iteration (Reactor::at_iteration_end): it runs once
// every completion that arrived together has been handled, so that what those handlers
// queued (e.g. Redis calls, auth/fleet_batch.hpp) leaves as one.
struct IterationEnd {
  void (*run)(IterationEnd* self);
  ListLinks<IterationEnd> links{};
  bool queued = false;
};

class Reactor {
 public:
  struct Options {
    unsigned sq_entries = 4096;
    // The provided buffers that receives of idle connections take from (buffer_ring.hpp):
    // a power of two of them, each as large as a request usually is.
    unsigned recv_buffers = 256;
    std::size_t recv_buffer_size = 4096;
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

  // Runs `hook` once, after the completions of the current loop iteration have been
  // handled and before the ring is submitted again; queuing it again before then is a
  // no-op. A hook that queues itself (or another) while hooks run is run in the same turn.
  void at_iteration_end(IterationEnd& hook) noexcept;
  // Unqueues `hook` if it is queued (its owner is going away).
  void forget(IterationEnd& hook) noexcept;

  // Asks the kernel to cancel the operation whose completion is `target`; the victim still
  // completes (with -ECANCELED, or normally if it was already done).
  void cancel(const Completion* target);
  // Asks the kernel to cancel every operation in flight on `fd` (each completes with
  // -ECANCELED). Operations submitted after this call are not affected: the kernel runs
  // submissions in order.
  void cancel_fd(int fd);

  // The ring of receive buffers this core's connections share while waiting for bytes.
  BufferRing& recv_buffers() noexcept { return *recv_buffers_; }

  // Completion-queue overflows observed by the kernel (should stay 0; see docs/PITFALLS.md).
  unsigned cq_overflow() const noexcept;

 private:
  void arm_wakeup();
  static void on_wakeup(Completion* self, int res, unsigned flags);
  void drain_posted();
  void run_iteration_end();

  unsigned index_;
  io_uring ring_{};
  std::unique_ptr<BufferRing> recv_buffers_;
  bool stopping_ = false;
  // Queued hooks, in the order they were queued: woken coroutines (runtime/event.hpp)
  // resume in the order they were woken.
  IntrusiveList<IterationEnd> iteration_end_;

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
