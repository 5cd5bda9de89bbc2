#pragma once
// The check `webhook add` makes on an endpoint URL's host before storing it: an address
// the dispatcher would refuse (common/ip_networks.hpp) is refused here already, so the
// operator hears of it at once rather than from failed deliveries.
#include "common/ip_networks.hpp"

#include <string>

namespace storeapi::admin {

// The policy of STOREAPI_WEBHOOK_ALLOW_NETWORKS; UsageError (exit 2) when malformed.
net::DestinationPolicy webhook_destinations();

// CommandError naming the address and its range when `url`'s host is an address the
// policy refuses, in any spelling libcurl accepts (0x7f.1, 2130706433, 0177.0.0.1,
// [::ffff:127.0.0.1], ...), or `localhost` (which libcurl resolves to loopback itself).
// Other host names pass: what they resolve to can change, and the dispatcher checks every
// address it connects to.
void check_webhook_destination(const std::string& url, const net::DestinationPolicy& policy);

}  // namespace storeapi::admin
