#pragma once
// The start-up check of STOREAPI_REDIS_URL: a blocking PING (and SELECT), so that a wrong
// or unreachable setting stops the server with a clear message instead of leaving every
// node to fall back on its own limits unnoticed.
#include <chrono>
#include <string>

#include "redis/endpoint.hpp"

namespace storeapi::redis {

// Returns when a Redis server answers at `endpoint` within `timeout`; else throws
// std::runtime_error with a one-line message.
void probe(const Endpoint& endpoint, std::chrono::milliseconds timeout);

}  // namespace storeapi::redis
