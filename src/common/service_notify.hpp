#pragma once
// sd_notify(3) without libsystemd: one datagram to the socket systemd names in
// $NOTIFY_SOCKET, so that a Type=notify unit knows when the server is ready (its port
// is bound and every core serves) and when it has begun to stop.
#include <string_view>

namespace storeapi {

// Sends `state` (e.g. "READY=1") to $NOTIFY_SOCKET: a path, or an abstract socket when
// it starts with '@'. True when sent; false when the variable is unset (not run by
// systemd) or the send failed, which the server ignores as sd_notify callers do.
bool notify_service_manager(std::string_view state);

}  // namespace storeapi
