#pragma once
// A loopback port nobody listens on right now, for servers a test starts beside the
// others on a shared machine (PostgreSQL clusters, Redis, HAProxy).
#include <cstdint>

namespace storeapi::testing {

std::uint16_t free_port();

}  // namespace storeapi::testing
