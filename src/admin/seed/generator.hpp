#pragma once
// Generates a store's demo data in memory. Deterministic: the same store id, locale and
// sizes give the same rows. Contents come from a fixed seed (so every store gets the same
// data); ids from a seed derived from the store id (so stores never share ids).
#include "admin/seed/model.hpp"

#include <string>

namespace storeapi::admin::seed {

// All timestamps fall in the two years before this instant: 2026-11-01T00:00:00Z.
inline constexpr Micros kReferenceTime = 1793491200LL * 1'000'000;

// CommandError when the sizes cannot be honoured (orders without customers or products,
// bookings without orders or a consulting product).
SeedData generate(const std::string& store_id, const std::string& locale, const SeedSizes& sizes);

}  // namespace storeapi::admin::seed
