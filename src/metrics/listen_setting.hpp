#pragma once
// STOREAPI_METRICS_LISTEN (server) and STOREAPI_DISPATCH_METRICS_LISTEN (dispatcher):
// "host:port" for the /metrics listener, or "off".
#include <optional>
#include <string>

#include "runtime/net.hpp"

namespace storeapi::metrics {

// Leaves `out` alone when the variable is unset or empty; "off" sets nullopt; a malformed
// value throws env::SettingError.
void read_listen_setting(const char* name, std::optional<runtime::ListenAddress>& out);

}  // namespace storeapi::metrics
