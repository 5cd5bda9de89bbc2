#pragma once
// Where a Redis server is: STOREAPI_REDIS_URL, "redis://host[:port][/db]", resolved once
// at start (host names included, so a per-core reconnect never blocks on a resolver), or
// "unix:///path[?db=N]", the socket file of a Redis on the same host.
#include <sys/socket.h>

#include <optional>
#include <string>

namespace storeapi::redis {

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  unsigned database = 0;  // SELECTed on every connection when not 0
  std::string text;       // host:port or the socket's path, for messages
};

// The endpoint of `url`; env::SettingError (one line) for a bad form or an unknown host.
Endpoint parse_endpoint(const std::string& url);

// A TCP endpoint (its connections want TCP_NODELAY), not a socket file.
inline bool is_tcp(const Endpoint& e) noexcept { return e.address.ss_family != AF_UNIX; }

}  // namespace storeapi::redis
