#include "metrics/listen_setting.hpp"

#include "common/env.hpp"

namespace storeapi::metrics {

void read_listen_setting(const char* name, std::optional<runtime::ListenAddress>& out) {
  const char* v = env::get(name);
  if (!v) return;
  if (std::string_view(v) == "off") {
    out.reset();
    return;
  }
  runtime::ListenAddress address;
  if (!runtime::ListenAddress::parse(v, address))
    throw env::SettingError(std::string(name) + ": expected an IP address and port (127.0.0.1:9464, [::1]:9464; not a host name) or off, got '" + v + "'");
  out = address;
}

}  // namespace storeapi::metrics
