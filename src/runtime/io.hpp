#pragma once
// Awaitable io_uring operations for the calling core's Reactor. Each awaiter lives in the
// awaiting coroutine's frame, which stays alive until the completion arrives: a
// completion can never touch freed memory as long as the coroutine awaits its operation
// (to abandon one early, cancel it and still await the result).
#include <liburing.h>
#include <poll.h>

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "runtime/reactor.hpp"

namespace storeapi::runtime {

using Clock = std::chrono::steady_clock;

// An absolute CLOCK_MONOTONIC instant for linked timeouts (steady_clock is CLOCK_MONOTONIC
// on Linux).
struct Deadline {
  __kernel_timespec ts{};
  static Deadline at(Clock::time_point t) noexcept;
  static Deadline after(Clock::duration d) noexcept { return at(Clock::now() + d); }
};

// Base of every awaitable operation: prepares one SQE and resumes the awaiter with the
// CQE's result. Derived classes provide prepare(io_uring_sqe*).
template <class Derived>
class Operation : protected Completion {
 public:
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    Reactor& r = Reactor::current();
    const Deadline* d = static_cast<Derived*>(this)->deadline();
    io_uring_sqe* sqe = r.get_sqe(d ? 2 : 1);
    static_cast<Derived*>(this)->prepare(sqe);
    io_uring_sqe_set_data(sqe, static_cast<Completion*>(this));
    if (d) {
      // The operation ends with -ECANCELED when the deadline passes first.
      sqe->flags |= IOSQE_IO_LINK;
      io_uring_sqe* t = r.get_sqe();  // the second of the two reserved entries
      io_uring_prep_link_timeout(t, const_cast<__kernel_timespec*>(&d->ts), IORING_TIMEOUT_ABS);
      io_uring_sqe_set_data64(t, 0);
    }
  }
  int await_resume() const noexcept { return res_; }
  unsigned flags() const noexcept { return flags_; }
  // While suspended on this operation: ask for it to end early (it resumes -ECANCELED).
  void cancel() const { Reactor::current().cancel(this); }

 protected:
  Operation() noexcept : Completion{&Operation::complete} {}
  const Deadline* deadline() const noexcept { return nullptr; }

 private:
  static void complete(Completion* c, int res, unsigned flags) {
    auto* op = static_cast<Operation*>(c);
    op->res_ = res;
    op->flags_ = flags;
    op->waiter_.resume();
  }

  std::coroutine_handle<> waiter_;
  int res_ = 0;
  unsigned flags_ = 0;
};

class Recv : public Operation<Recv> {
 public:
  Recv(int fd, void* buf, std::size_t len, const Deadline* deadline) noexcept
      : fd_(fd), buf_(buf), len_(len), deadline_(deadline) {}
  void prepare(io_uring_sqe* sqe) noexcept { io_uring_prep_recv(sqe, fd_, buf_, len_, 0); }
  const Deadline* deadline() const noexcept { return deadline_; }

 private:
  int fd_;
  void* buf_;
  std::size_t len_;
  const Deadline* deadline_;
};

class Send : public Operation<Send> {
 public:
  Send(int fd, const void* buf, std::size_t len, const Deadline* deadline) noexcept
      : fd_(fd), buf_(buf), len_(len), deadline_(deadline) {}
  void prepare(io_uring_sqe* sqe) noexcept { io_uring_prep_send(sqe, fd_, buf_, len_, MSG_NOSIGNAL); }
  const Deadline* deadline() const noexcept { return deadline_; }

 private:
  int fd_;
  const void* buf_;
  std::size_t len_;
  const Deadline* deadline_;
};

class Connect : public Operation<Connect> {
 public:
  Connect(int fd, const sockaddr* address, socklen_t length, const Deadline* deadline) noexcept
      : fd_(fd), address_(address), length_(length), deadline_(deadline) {}
  void prepare(io_uring_sqe* sqe) noexcept { io_uring_prep_connect(sqe, fd_, address_, length_); }
  const Deadline* deadline() const noexcept { return deadline_; }

 private:
  int fd_;
  const sockaddr* address_;
  socklen_t length_;
  const Deadline* deadline_;
};

class Poll : public Operation<Poll> {
 public:
  Poll(int fd, unsigned mask, const Deadline* deadline = nullptr) noexcept
      : fd_(fd), mask_(mask), deadline_(deadline) {}
  void prepare(io_uring_sqe* sqe) noexcept { io_uring_prep_poll_add(sqe, fd_, mask_); }
  const Deadline* deadline() const noexcept { return deadline_; }

 private:
  int fd_;
  unsigned mask_;
  const Deadline* deadline_;
};

// Resumes after `d`; the result is -ETIME (normal expiry) or -ECANCELED.
class Sleep : public Operation<Sleep> {
 public:
  explicit Sleep(Clock::duration d) noexcept;
  void prepare(io_uring_sqe* sqe) noexcept { io_uring_prep_timeout(sqe, &ts_, 0, 0); }

 private:
  __kernel_timespec ts_{};
};

// Cancels every operation in flight on `fd`; each victim completes with -ECANCELED. The
// result is the number cancelled (0 when there was none: with IORING_ASYNC_CANCEL_ALL the
// kernel counts rather than answering -ENOENT).
class CancelFd : public Operation<CancelFd> {
 public:
  explicit CancelFd(int fd) noexcept : fd_(fd) {}
  void prepare(io_uring_sqe* sqe) noexcept {
    io_uring_prep_cancel_fd(sqe, fd_, IORING_ASYNC_CANCEL_ALL);
  }

 private:
  int fd_;
};

inline Recv recv(int fd, void* buf, std::size_t len, const Deadline* deadline = nullptr) noexcept {
  return {fd, buf, len, deadline};
}
inline Send send(int fd, const void* buf, std::size_t len, const Deadline* deadline = nullptr) noexcept {
  return {fd, buf, len, deadline};
}
inline Poll poll(int fd, unsigned mask, const Deadline* deadline = nullptr) noexcept {
  return {fd, mask, deadline};
}
inline Sleep sleep_for(Clock::duration d) noexcept { return Sleep{d}; }

}  // namespace storeapi::runtime
