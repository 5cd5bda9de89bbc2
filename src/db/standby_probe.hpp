#pragma once
// The start-up check of STOREAPI_REPLICA_URLS: each URL must reach a PostgreSQL server
// that is a hot standby (in recovery, accepting reads), so that a typo or a primary's
// URL given by mistake is a clear error at start rather than reads that never leave the
// primary.
#include <chrono>
#include <string>

namespace storeapi::db {

// Blocking (before the cores start). Throws std::runtime_error (one line) when the server
// cannot be reached within `timeout` or is not in recovery.
void probe_standby(const std::string& url, std::chrono::seconds timeout);

}  // namespace storeapi::db
