#include "runtime/buffer_ring.hpp"

#include <sys/mman.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace storeapi::runtime {

BufferRing::BufferRing(io_uring& ring, std::uint16_t group, unsigned count, std::size_t size)
    : ring_(ring), group_(group), count_(count), size_(size), storage_(new char[std::size_t{count} * size]) {
  if (count == 0 || (count & (count - 1)) != 0 || count > 32768)
    throw std::invalid_argument("BufferRing: the count must be a power of two up to 32768");
  // liburing 2.3 has no io_uring_setup_buf_ring: map and register the ring by hand.
  entries_bytes_ = std::size_t{count} * sizeof(io_uring_buf);
  void* mem = ::mmap(nullptr, entries_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) throw std::runtime_error(std::string("mmap (buffer ring): ") + std::strerror(errno));
  entries_ = static_cast<io_uring_buf_ring*>(mem);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uint64_t>(entries_);
  reg.ring_entries = count;
  reg.bgid = group;
  if (int rc = io_uring_register_buf_ring(&ring_, &reg, 0); rc < 0) {
    ::munmap(entries_, entries_bytes_);
    throw std::runtime_error(std::string("io_uring_register_buf_ring (needs Linux >= 5.19): ") + std::strerror(-rc));
  }
  io_uring_buf_ring_init(entries_);
  int mask = io_uring_buf_ring_mask(count);
  for (unsigned id = 0; id < count; ++id)
    io_uring_buf_ring_add(entries_, storage_.get() + std::size_t{id} * size_, static_cast<unsigned>(size_),
                          static_cast<unsigned short>(id), mask, static_cast<int>(id));
  io_uring_buf_ring_advance(entries_, static_cast<int>(count));
}

BufferRing::~BufferRing() {
  io_uring_unregister_buf_ring(&ring_, group_);
  ::munmap(entries_, entries_bytes_);
}

void BufferRing::give_back(unsigned id) noexcept {
  io_uring_buf_ring_add(entries_, storage_.get() + std::size_t{id} * size_, static_cast<unsigned>(size_),
                        static_cast<unsigned short>(id), io_uring_buf_ring_mask(count_), 0);
  io_uring_buf_ring_advance(entries_, 1);
  --lent_;
}

Received::Received(int result, unsigned flags, BufferRing& ring) noexcept : result_(result), ring_(&ring) {
  // The kernel may hand a buffer with any result, end of stream included: whenever it says
  // it did, the buffer is ours to give back.
  if (flags & IORING_CQE_F_BUFFER) {
    id_ = flags >> IORING_CQE_BUFFER_SHIFT;
    holds_ = true;
    ring.note_lent();
  }
}

}  // namespace storeapi::runtime
