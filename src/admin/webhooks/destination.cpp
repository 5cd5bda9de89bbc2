#include "admin/webhooks/destination.hpp"

#include "admin/base/errors.hpp"
#include "common/env.hpp"
#include "common/url_parts.hpp"

namespace storeapi::admin {

net::DestinationPolicy webhook_destinations() {
  try {
    return net::DestinationPolicy::from_env();
  } catch (const env::SettingError& e) {
    throw UsageError(e.what());
  }
}

void check_webhook_destination(const std::string& url, const net::DestinationPolicy& policy) {
  auto host = url::host(url);
  if (!host) throw UsageError("--url must be an http(s) URL, got '" + url + "'");
  auto address = net::host_address(*host);
  if (!address) return;
  if (auto refusal = policy.refusal(*address)) {
    bool named = address->text() != *host;  // localhost, or an odd spelling of the address
    throw CommandError("--url: " + (named ? "'" + *host + "' means " : std::string()) + *refusal);
  }
}

}  // namespace storeapi::admin
