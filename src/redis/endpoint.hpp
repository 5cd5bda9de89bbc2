#pragma once
// Where a Redis server is and how to sign in: STOREAPI_REDIS_URL,
// "redis://[user[:password]@]host[:port][/db]" (TLS: "rediss://…"), resolved once at start
// (host names included, so a per-core reconnect never blocks on a resolver), or
// "unix://[user[:password]@]/path[?db=N]", the socket file of a Redis on the same host.
// The user and password are percent-decoded; a password alone is the default user's
// (Redis's requirepass), with a user it is that ACL user's.
#include <sys/socket.h>

#include <memory>
#include <string>

#include "redis/tls.hpp"

namespace storeapi::redis {

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  unsigned database = 0;  // SELECTed on every connection when not 0
  std::string text;       // host:port or the socket's path, for messages (never a credential)
  std::string user;       // empty: the default user
  std::string password;   // empty: no AUTH
  // rediss://: the host name or address the server's certificate must name, and the
  // context (trusted CAs, client certificate) set by use_tls() before the first connection.
  bool tls = false;
  std::string host;
  std::shared_ptr<TlsContext> tls_context;
};

// The endpoint of `url`; env::SettingError (one line, the URL shown with its password
// masked) for a bad form or an unknown host.
Endpoint parse_endpoint(const std::string& url);

// Appends what every connection starts with: AUTH when `e` has a password, SELECT when its
// database is not 0. Returns how many commands (as many replies to expect).
std::size_t append_session_setup(std::string& out, const Endpoint& e);

// A TCP endpoint (its connections want TCP_NODELAY), not a socket file.
inline bool is_tcp(const Endpoint& e) noexcept { return e.address.ss_family != AF_UNIX; }

}  // namespace storeapi::redis
