#include "runtime/reactor.hpp"

#include "runtime/buffer_ring.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace storeapi::runtime {
namespace {

thread_local Reactor* tls_reactor = nullptr;

// Multishot operations make completions outnumber submissions (docs/PITFALLS.md): a CQ of 8x.
constexpr unsigned kCqFactor = 8;

// The ring's only buffer group.
constexpr std::uint16_t kRecvBufferGroup = 0;

}  // namespace

Reactor::Reactor(unsigned index, Options options) : index_(index) {
  io_uring_params params{};
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER |
                 IORING_SETUP_DEFER_TASKRUN;
  params.cq_entries = options.sq_entries * kCqFactor;
  int rc = io_uring_queue_init_params(options.sq_entries, &ring_, &params);
  if (rc < 0) {
    // Older kernels lack DEFER_TASKRUN / SINGLE_ISSUER: fall back to the portable flags.
    params = {};
    params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL;
    params.cq_entries = options.sq_entries * kCqFactor;
    rc = io_uring_queue_init_params(options.sq_entries, &ring_, &params);
  }
  if (rc < 0) throw std::runtime_error(std::string("io_uring_queue_init: ") + std::strerror(-rc));
  try {
    recv_buffers_ = std::make_unique<BufferRing>(ring_, kRecvBufferGroup, options.recv_buffers, options.recv_buffer_size);
  } catch (...) {
    io_uring_queue_exit(&ring_);
    throw;
  }
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

Reactor::~Reactor() {
  recv_buffers_.reset();  // unregisters itself: before the ring goes
  io_uring_queue_exit(&ring_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Reactor& Reactor::current() noexcept { return *tls_reactor; }
Reactor* Reactor::current_or_null() noexcept { return tls_reactor; }

io_uring_sqe* Reactor::get_sqe(unsigned count) {
  while (io_uring_sq_space_left(&ring_) < count) {
    int rc = io_uring_submit(&ring_);
    if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
      throw std::runtime_error(std::string("io_uring_submit: ") + std::strerror(-rc));
  }
  return io_uring_get_sqe(&ring_);
}

void Reactor::cancel(const Completion* target) {
  io_uring_sqe* sqe = get_sqe();
  io_uring_prep_cancel64(sqe, reinterpret_cast<std::uint64_t>(target), 0);
  io_uring_sqe_set_data64(sqe, 0);
}

void Reactor::cancel_fd(int fd) {
  io_uring_sqe* sqe = get_sqe();
  io_uring_prep_cancel_fd(sqe, fd, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, 0);
}

// The kernel writes the counter; an atomic load makes reading it from the scraping
// thread race-free.
unsigned Reactor::cq_overflow() const noexcept { return __atomic_load_n(ring_.cq.koverflow, __ATOMIC_RELAXED); }

void Reactor::arm_wakeup() {
  io_uring_sqe* sqe = get_sqe();
  io_uring_prep_read(sqe, wake_fd_, &wake_value_, sizeof wake_value_, 0);
  io_uring_sqe_set_data(sqe, &wake_completion_);
}

void Reactor::on_wakeup(Completion* self, int, unsigned) {
  Reactor* r = static_cast<WakeCompletion*>(self)->reactor;
  r->drain_posted();
  if (!r->stopping_) r->arm_wakeup();
}

void Reactor::post(std::function<void()> fn) {
  {
    std::lock_guard lock(posted_mutex_);
    posted_.push_back(std::move(fn));
  }
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
}

void Reactor::drain_posted() {
  std::deque<std::function<void()>> batch;
  {
    std::lock_guard lock(posted_mutex_);
    batch.swap(posted_);
  }
  for (auto& fn : batch) fn();
}

void Reactor::at_iteration_end(IterationEnd& hook) noexcept {
  if (hook.queued) return;
  hook.queued = true;
  iteration_end_.push_back(hook);
}

void Reactor::forget(IterationEnd& hook) noexcept {
  if (!hook.queued) return;
  iteration_end_.remove(hook);
  hook.queued = false;
}

void Reactor::run_iteration_end() {
  while (IterationEnd* hook = iteration_end_.pop_front()) {
    hook->queued = false;
    hook->run(hook);
  }
}

void Reactor::run() {
  tls_reactor = this;
  arm_wakeup();
  constexpr unsigned kBatch = 256;
  io_uring_cqe* cqes[kBatch];
  struct Ready {
    std::uint64_t user_data;
    int res;
    unsigned flags;
  } ready[kBatch];

  while (!stopping_) {
    int rc = io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
      throw std::runtime_error(std::string("io_uring_submit_and_wait: ") + std::strerror(-rc));
    for (;;) {
      unsigned n = io_uring_peek_batch_cqe(&ring_, cqes, kBatch);
      if (n == 0) break;
      // Copy out and release the CQ slots before running handlers, which submit more work.
      for (unsigned i = 0; i < n; ++i) ready[i] = {cqes[i]->user_data, cqes[i]->res, cqes[i]->flags};
      io_uring_cq_advance(&ring_, n);
      for (unsigned i = 0; i < n; ++i) {
        if (ready[i].user_data == 0) continue;
        auto* c = reinterpret_cast<Completion*>(ready[i].user_data);
        c->on_complete(c, ready[i].res, ready[i].flags);
      }
    }
    run_iteration_end();
  }
  // Operations still in flight die with the ring; their coroutines are never resumed.
  tls_reactor = nullptr;
}

}  // namespace storeapi::runtime
