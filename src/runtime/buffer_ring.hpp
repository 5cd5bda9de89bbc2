#pragma once
// A provided-buffer ring (io_uring_register_buf_ring, kernel >= 5.19) and the receive that
// takes its buffer from it. Such a receive holds no memory while it waits: the kernel
// picks a buffer only when bytes arrive, so thousands of idle keep-alive connections can
// wait on one small ring per core (the pattern of liburing's examples/proxy.c).
//
// Every buffer the kernel filled must be given back; Received does it when destroyed, so
// error paths cannot leak one. When the ring is empty a receive ends with -ENOBUFS.
#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "runtime/io.hpp"

namespace storeapi::runtime {

class BufferRing {
 public:
  // `count` buffers of `size` bytes, registered as buffer group `group`; count is a power
  // of two (the ring's index mask). Throws when the kernel has no buffer rings.
  BufferRing(io_uring& ring, std::uint16_t group, unsigned count, std::size_t size);
  ~BufferRing();
  BufferRing(const BufferRing&) = delete;
  BufferRing& operator=(const BufferRing&) = delete;

  std::uint16_t group() const noexcept { return group_; }
  std::size_t buffer_size() const noexcept { return size_; }
  const char* buffer(unsigned id) const noexcept { return storage_.get() + std::size_t{id} * size_; }
  void give_back(unsigned id) noexcept;
  // Buffers the kernel filled that were not given back yet (for tests and tuning).
  unsigned lent() const noexcept { return lent_; }
  void note_lent() noexcept { ++lent_; }

 private:
  io_uring& ring_;
  std::uint16_t group_;
  unsigned count_;
  std::size_t size_;
  io_uring_buf_ring* entries_ = nullptr;  // page-aligned, shared with the kernel
  std::size_t entries_bytes_ = 0;
  std::unique_ptr<char[]> storage_;
  unsigned lent_ = 0;
};

// The outcome of a receive from a BufferRing: result() as for recv (bytes, 0 at end of
// stream, -errno), and the bytes. Gives the buffer back when destroyed.
class Received {
 public:
  Received(int result, unsigned flags, BufferRing& ring) noexcept;
  ~Received() { release(); }
  Received(Received&& other) noexcept
      : result_(other.result_), ring_(other.ring_), id_(other.id_), holds_(other.holds_) {
    other.holds_ = false;
  }
  Received& operator=(Received&&) = delete;

  int result() const noexcept { return result_; }
  std::span<const char> bytes() const noexcept {
    if (!holds_ || result_ <= 0) return {};
    return {ring_->buffer(id_), static_cast<std::size_t>(result_)};
  }

 private:
  void release() noexcept {
    if (holds_) ring_->give_back(id_);
    holds_ = false;
  }

  int result_;
  BufferRing* ring_;
  unsigned id_ = 0;
  bool holds_ = false;
};

class RecvProvided : public Operation<RecvProvided> {
 public:
  RecvProvided(int fd, BufferRing& ring) noexcept : fd_(fd), ring_(ring) {}
  void prepare(io_uring_sqe* sqe) noexcept {
    io_uring_prep_recv(sqe, fd_, nullptr, ring_.buffer_size(), 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = ring_.group();
  }
  Received await_resume() const noexcept { return {Operation::await_resume(), flags(), ring_}; }

 private:
  int fd_;
  BufferRing& ring_;
};

inline RecvProvided recv_provided(int fd, BufferRing& ring) noexcept { return {fd, ring}; }

}  // namespace storeapi::runtime
