#pragma once
// Waiting for a started storeapi to be ready on every core. It reports listening before
// its cores have connected their database pools, and a connection lands on any core
// (SO_REUSEPORT), so only a run of ready answers on fresh connections says every core is.
#include <chrono>
#include <cstdint>

namespace storeapi::testing {

// True once GET /readyz answers 200 on 20 fresh connections in a row (all landing on one
// of two cores has odds of 2^-19); false if that has not happened within `timeout`.
bool every_core_ready(std::uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace storeapi::testing
