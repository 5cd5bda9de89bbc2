#include "metrics/cells.hpp"

namespace storeapi::metrics {
namespace {
thread_local unsigned t_core = kNoCore;
}

void bind_this_thread(unsigned core) noexcept { t_core = core; }
unsigned this_thread_core() noexcept { return t_core; }

Cells::Cells(unsigned cores, unsigned width)
    : cores_(cores), lines_per_block_((width + 7) / 8), lines_(new Line[std::size_t{cores + 1} * lines_per_block_]) {
  for (std::size_t l = 0; l < std::size_t{cores + 1} * lines_per_block_; ++l)
    for (auto& v : lines_[l].v) v.store(0, std::memory_order_relaxed);
}

void Cells::add_double(unsigned i, double delta) noexcept {
  unsigned core = this_thread_core();
  std::atomic<std::uint64_t>& cell = at(core < cores_ ? core : cores_, i);
  std::uint64_t old = cell.load(std::memory_order_relaxed);
  if (core < cores_) {
    cell.store(std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + delta), std::memory_order_relaxed);
    return;
  }
  while (!cell.compare_exchange_weak(old, std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + delta),
                                     std::memory_order_relaxed)) {
  }
}

std::uint64_t Cells::total(unsigned i) const noexcept {
  std::uint64_t sum = 0;
  for (unsigned b = 0; b <= cores_; ++b) sum += at(b, i).load(std::memory_order_relaxed);
  return sum;
}

double Cells::total_double(unsigned i) const noexcept {
  double sum = 0;
  for (unsigned b = 0; b <= cores_; ++b) sum += std::bit_cast<double>(at(b, i).load(std::memory_order_relaxed));
  return sum;
}

}  // namespace storeapi::metrics
