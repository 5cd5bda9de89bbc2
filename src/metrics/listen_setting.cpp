#include "metrics/listen_setting.hpp"

#include "common/env.hpp"

namespace storeapi::metrics {

bool read_listen_setting(const char* name, std::optional<runtime::ListenAddress>& out, std::string& error) {
  const char* v = env::get(name);
  if (!v) return true;
  if (std::string_view(v) == "off") {
    out.reset();
    return true;
  }
  runtime::ListenAddress address;
  if (!runtime::ListenAddress::parse(v, address)) {
    error = std::string(name) + ": expected an IP address and port (127.0.0.1:9464, [::1]:9464; not a host name) or off, got '" + v + "'";
    return false;
  }
  out = address;
  return true;
}

}  // namespace storeapi::metrics
