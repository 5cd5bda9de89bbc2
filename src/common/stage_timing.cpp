#include "common/stage_timing.hpp"

#include <atomic>
#include <memory>
#include <mutex>

#include "common/log_buckets.hpp"

namespace storeapi::stage_timing {

namespace detail {
bool enabled = false;
}

namespace {

// One core's histograms. Written by that core only (load + store, not fetch_add: no bus
// lock); read by snapshot() from any thread.
struct CoreHistograms {
  std::array<std::array<std::atomic<std::uint64_t>, log_buckets::kCount>, kStageCount> counts{};
};

// Every thread that ever recorded; registered once per thread (the only lock), never
// freed, so a snapshot never reads a histogram that went away.
std::mutex registry_mutex;
std::vector<std::unique_ptr<CoreHistograms>>& registry() {
  static std::vector<std::unique_ptr<CoreHistograms>> all;
  return all;
}

CoreHistograms& this_core() {
  thread_local CoreHistograms* mine = [] {
    std::lock_guard lock(registry_mutex);
    registry().push_back(std::make_unique<CoreHistograms>());
    return registry().back().get();
  }();
  return *mine;
}

}  // namespace

std::string_view name(Stage stage) noexcept {
  switch (stage) {
    case Stage::read_wait: return "read_wait";
    case Stage::parse: return "parse";
    case Stage::auth: return "auth";
    case Stage::db_queue: return "db_queue";
    case Stage::db_pipeline: return "db_pipeline";
    case Stage::db: return "db";
    case Stage::render: return "render";
    case Stage::send: return "send";
    case Stage::total: return "total";
  }
  return "?";
}

void enable(bool on) noexcept { detail::enabled = on; }

void detail::record(Stage stage, std::uint64_t ns) noexcept {
  auto& slot = this_core().counts[static_cast<std::size_t>(stage)][log_buckets::bucket_of(ns)];
  slot.store(slot.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::array<Buckets, kStageCount> snapshot() {
  std::array<Buckets, kStageCount> out;
  std::lock_guard lock(registry_mutex);
  for (std::size_t s = 0; s < kStageCount; ++s) {
    for (unsigned b = 0; b < log_buckets::kCount; ++b) {
      std::uint64_t sum = 0;
      for (const auto& core : registry()) sum += core->counts[s][b].load(std::memory_order_relaxed);
      if (sum) out[s].emplace_back(log_buckets::highest_in(b), sum);
    }
  }
  return out;
}

}  // namespace storeapi::stage_timing
