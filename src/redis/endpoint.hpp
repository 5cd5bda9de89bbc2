#pragma once
// Where a Redis server is: STOREAPI_REDIS_URL, "redis://host[:port][/db]", resolved once
// at start (host names included, so a per-core reconnect never blocks on a resolver).
#include <sys/socket.h>

#include <optional>
#include <string>

namespace storeapi::redis {

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  unsigned database = 0;  // SELECTed on every connection when not 0
  std::string text;       // host:port, for messages
};

// The endpoint of `url`, or nullopt with a one-line `error` (bad form, unknown host).
std::optional<Endpoint> parse_endpoint(const std::string& url, std::string& error);

}  // namespace storeapi::redis
