#pragma once
// The values of one metric series, kept per core so that the request path never takes a
// lock nor a shared atomic read-modify-write: each core owns one block of cells and is
// its only writer (a relaxed load and store, no `lock` prefix); the scraper sums the
// blocks with relaxed loads, which is race-free because every cell is an atomic.
// Threads that are not a core (the dispatcher's, tests') share one extra block and use
// fetch_add there, so they stay correct whatever their number.
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>

namespace storeapi::metrics {

// The block this thread writes: its core index, or none (the shared block). Bound once
// by each core's thread at start (app/main.cpp, Cores' setup).
void bind_this_thread(unsigned core) noexcept;
unsigned this_thread_core() noexcept;
inline constexpr unsigned kNoCore = std::numeric_limits<unsigned>::max();

class Cells {
 public:
  // `width` values per block, `cores` single-writer blocks plus the shared one.
  Cells(unsigned cores, unsigned width);

  void add(unsigned i, std::uint64_t delta) noexcept {
    unsigned core = this_thread_core();
    if (core < cores_) {
      std::atomic<std::uint64_t>& cell = at(core, i);
      cell.store(cell.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    } else {
      at(cores_, i).fetch_add(delta, std::memory_order_relaxed);
    }
  }
  // Cell `i` holds the bits of a double (a histogram's sum).
  void add_double(unsigned i, double delta) noexcept;

  // Over every block, read by the scraper.
  std::uint64_t total(unsigned i) const noexcept;
  double total_double(unsigned i) const noexcept;

 private:
  // 64-byte lines, so that two cores never write the same cache line.
  struct alignas(64) Line {
    std::atomic<std::uint64_t> v[8];
  };
  std::atomic<std::uint64_t>& at(unsigned block, unsigned i) const noexcept {
    std::size_t n = std::size_t{block} * lines_per_block_ * 8 + i;
    return lines_[n / 8].v[n % 8];
  }

  unsigned cores_;
  unsigned lines_per_block_;
  std::unique_ptr<Line[]> lines_;
};

}  // namespace storeapi::metrics
