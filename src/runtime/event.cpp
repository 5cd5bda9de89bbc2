#include "runtime/event.hpp"

#include <cassert>

namespace storeapi::runtime {

Event::~Event() {
  while (Wait* w = waiters_.pop_front()) w->wake(Woken::broken);
}

Event::Wait Event::wait() noexcept { return Wait(*this, false, {}); }
Event::Wait Event::wait_until(Clock::time_point deadline) noexcept { return Wait(*this, true, deadline); }
Event::Wait Event::wait_for(Clock::duration timeout) noexcept { return wait_until(Clock::now() + timeout); }

void Event::signal() noexcept {
  if (Wait* w = waiters_.pop_front()) w->wake(Woken::signalled);
}

void Event::broadcast() noexcept {
  // wake() never resumes inline, so nobody can link itself while this runs.
  while (!waiters_.empty()) signal();
}

Event::Wait::Wait(Event& event, bool has_deadline, Clock::time_point deadline) noexcept
    : event_(&event), has_deadline_(has_deadline), deadline_at_(deadline) {
  if (has_deadline_) deadline_ = Deadline::at(deadline);
}

Event::Wait::~Wait() {
  // A frame destroyed while it waits (its owner dropped the task) leaves no trace behind:
  // the event and the reactor forget it. Not while its timer is in the kernel, whose
  // completion points into this frame (as any io_uring operation's: docs/PITFALLS.md).
  assert(!timer_armed_);
  if (phase_ == Phase::linked) event_->waiters_.remove(*this);
  if (hook_.queued) reactor_->forget(hook_);
}

bool Event::Wait::await_ready() const noexcept {
  if (has_deadline_ && Clock::now() >= deadline_at_) {
    const_cast<Wait*>(this)->result_ = Woken::timed_out;
    return true;
  }
  return false;
}

void Event::Wait::await_suspend(std::coroutine_handle<> h) noexcept {
  assert(phase_ == Phase::idle);
  waiter_ = h;
  reactor_ = &Reactor::current();
  event_->waiters_.push_back(*this);
  phase_ = Phase::linked;
  if (has_deadline_) {
    io_uring_sqe* sqe = reactor_->get_sqe();
    io_uring_prep_timeout(sqe, &deadline_.ts, 0, IORING_TIMEOUT_ABS);
    io_uring_sqe_set_data(sqe, static_cast<Completion*>(&timer_));
    timer_armed_ = true;
  }
}

void Event::Wait::wake(Woken why) noexcept {
  assert(phase_ == Phase::linked);
  phase_ = Phase::waking;
  result_ = why;
  // An event destroyed after its core stopped (its owner outlived the reactor): like an
  // operation in flight when the ring went, the waiter is never resumed.
  if (Reactor::current_or_null() != reactor_) return;
  // With a timer in the kernel the frame may resume only once its completion is in: the
  // cancelled timer's completion resumes it (on_timer).
  if (timer_armed_) reactor_->cancel(&timer_);
  else reactor_->at_iteration_end(hook_);
}

void Event::Wait::on_timer(Completion* c, int, unsigned) noexcept {
  Wait* w = static_cast<Timer*>(c)->wait;
  w->timer_armed_ = false;
  if (w->phase_ == Phase::linked) {  // the deadline came first
    w->event_->waiters_.remove(*w);
    w->result_ = Woken::timed_out;
  }
  w->resume();
}

void Event::Wait::on_iteration_end(IterationEnd* hook) noexcept { static_cast<Hook*>(hook)->wait->resume(); }

void Event::Wait::resume() noexcept {
  assert(phase_ == Phase::linked || phase_ == Phase::waking);
  phase_ = Phase::resumed;
  waiter_.resume();
}

}  // namespace storeapi::runtime
