#include "metrics/stage_timing.hpp"

#include <array>

namespace storeapi::stage_timing {

namespace detail {
bool enabled = false;
}

namespace {

// The series of the last enable(true), one per stage; stable for the registry's lifetime.
std::array<metrics::Histogram*, kStageCount> series{};

constexpr double kBuckets[] = {
    1e-6, 1.5e-6, 2e-6, 3e-6, 5e-6, 7e-6, 1e-5, 1.5e-5, 2e-5, 3e-5, 5e-5, 7e-5,
    1e-4, 1.5e-4, 2e-4, 3e-4, 5e-4, 7e-4, 1e-3, 1.5e-3, 2e-3, 3e-3, 5e-3, 7e-3,
    1e-2, 1.5e-2, 2e-2, 3e-2, 5e-2, 7e-2, 0.1,  0.15,   0.2,  0.3,  0.5,  0.7,
    1,    1.5,    2,    3,    5,    7,    10};

}  // namespace

std::span<const double> buckets() noexcept { return kBuckets; }

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

void enable(bool on, metrics::Registry& registry) {
  if (on) {
    auto& family = registry.histogram(kFamily, "Time spent per request stage (STOREAPI_STAGE_TIMING=on).", {"stage"},
                                      buckets());
    for (std::size_t s = 0; s < kStageCount; ++s) series[s] = &family.with({name(static_cast<Stage>(s))});
  }
  detail::enabled = on;
}

void detail::record(Stage stage, std::uint64_t ns) noexcept {
  series[static_cast<std::size_t>(stage)]->observe(static_cast<double>(ns) / 1e9);
}

}  // namespace storeapi::stage_timing
