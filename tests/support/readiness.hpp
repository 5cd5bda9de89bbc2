#pragma once
// Waiting for a started storeapi to be ready on every core. It reports listening before
// its cores have connected their database pools, and a connection lands on any core
// (SO_REUSEPORT), so only a run of ready answers on fresh connections says every core is.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "support/server_process.hpp"

namespace storeapi::testing {

// True once GET /readyz answers 200 on 20 fresh connections in a row (all landing on one
// of two cores has odds of 2^-19); false if that has not happened within `timeout`.
bool every_core_ready(std::uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds(30));

// storeapi on `database_url` as the API tests run it (two threads, access log off, cursors
// signed with `secret`, and any further `settings`), returned once every core is ready;
// throws with its log if not.
std::unique_ptr<ServerProcess> start_api_server(const std::string& database_url, const std::string& secret,
                                                const std::map<std::string, std::string>& settings = {});

}  // namespace storeapi::testing
