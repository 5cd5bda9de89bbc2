#pragma once
// An event a coroutine of this core awaits until another coroutine (or a message posted to
// this core) says that what it waits for may have happened: the wait primitive for
// anything but I/O and the clock (docs/ARCHITECTURE.md §3, "Waiting for another
// coroutine"). A waiter re-checks its own condition after every wake-up, so a broadcast
// may be spurious for some of them and costs them only that check.
//
// Allocation-free: a waiter is the awaiter object, living in the awaiting coroutine's frame
// and linked into the event's list; its resumption is queued on the reactor's
// end-of-iteration list (never run inside signal(), whose caller is mid-change). A wait
// with a deadline adds one io_uring timeout whose completion lives in that same frame;
// woken before it, the waiter cancels it and resumes when its completion arrives (the
// frame must outlive it, as for every io_uring operation: docs/PITFALLS.md).
//
// One core only: signal() and broadcast() must run on the event's own core. Another core
// reaches it with Cores::post_to / Reactor::post, which run there.
#include <coroutine>

#include "runtime/intrusive_list.hpp"
#include "runtime/io.hpp"
#include "runtime/reactor.hpp"

namespace storeapi::runtime {

// How a wait ended.
enum class Woken {
  signalled,  // signal() or broadcast(): look at the condition again
  timed_out,  // the deadline passed first
  broken,     // the event was destroyed: what it stood for is gone
};

class Event {
 public:
  class Wait;

  Event() = default;
  // Every waiter still linked resumes with Woken::broken (unless the core's reactor has
  // stopped: then, as for I/O in flight, it is never resumed).
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // co_await event.wait() / wait_until(t) / wait_for(d): resumes with how it ended.
  [[nodiscard]] Wait wait() noexcept;
  [[nodiscard]] Wait wait_until(Clock::time_point deadline) noexcept;
  [[nodiscard]] Wait wait_for(Clock::duration timeout) noexcept;

  // Wakes the longest-waiting waiter, if any.
  void signal() noexcept;
  // Wakes every waiter linked now (one that starts waiting while they resume waits on).
  void broadcast() noexcept;

  bool has_waiters() const noexcept { return !waiters_.empty(); }

 private:
  IntrusiveList<Wait> waiters_;  // the longest-waiting first
};

// The awaiter: one wait on one event. Its states, each moved to by the one place named:
//   idle ─await_suspend→ linked ─signal/broadcast/~Event→ waking ─(end of iteration, or
//   the cancelled timer's completion)→ resumed
//   linked ─timer fires→ resumed (timed_out)
// `timer_armed_` is orthogonal: set while the deadline's timeout is in the kernel.
class Event::Wait {
 public:
  Wait(Event& event, bool has_deadline, Clock::time_point deadline) noexcept;
  ~Wait();
  Wait(const Wait&) = delete;
  Wait& operator=(const Wait&) = delete;

  bool await_ready() const noexcept;
  void await_suspend(std::coroutine_handle<> h) noexcept;
  Woken await_resume() const noexcept { return result_; }

 private:
  friend class Event;
  friend class IntrusiveList<Wait>;
  enum class Phase { idle, linked, waking, resumed };

  // Called by the event with the wait unlinked.
  void wake(Woken why) noexcept;
  static void on_timer(Completion* c, int res, unsigned flags) noexcept;
  static void on_iteration_end(IterationEnd* hook) noexcept;
  void resume() noexcept;

  struct Timer : Completion {
    Wait* wait;
  };
  struct Hook : IterationEnd {
    Wait* wait;
  };

  Event* event_;
  ListLinks<Wait> links;  // on the event's list while linked
  Phase phase_ = Phase::idle;
  Woken result_ = Woken::signalled;
  bool has_deadline_;
  bool timer_armed_ = false;
  Deadline deadline_{};
  Clock::time_point deadline_at_;
  Timer timer_{{&Wait::on_timer}, this};
  Hook hook_{{&Wait::on_iteration_end}, this};
  Reactor* reactor_ = nullptr;
  std::coroutine_handle<> waiter_;
};

}  // namespace storeapi::runtime
