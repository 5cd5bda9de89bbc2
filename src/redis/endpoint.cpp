#include "redis/endpoint.hpp"

#include <netdb.h>
#include <sys/un.h>

#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "common/env.hpp"
#include "common/percent.hpp"
#include "redis/protocol.hpp"

namespace storeapi::redis {
namespace {

template <class T>
bool whole_number(std::string_view text, T& out, T max) {
  auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size() && !text.empty() && out <= max;
}

// `url` for messages: the password replaced, and the user too when no ':' parts them,
// since a password written without its ':' (redis://PASSWORD@host) reads as a user.
std::string masked(const std::string& url) {
  const std::size_t scheme_end = url.find("://");
  const std::size_t at = url.rfind('@');
  if (scheme_end == std::string::npos || at == std::string::npos || at < scheme_end) return url;
  const std::size_t colon = url.find(':', scheme_end + 3);
  if (colon == std::string::npos || colon > at) return url.substr(0, scheme_end + 3) + "***" + url.substr(at);
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

// Takes "[user[:password]@]" off the front of `rest` into `e`; false on a bad escape. The
// password may hold '@' and '/' unescaped: a host, port and database never hold an '@', and
// a socket path starts with '/'.
bool take_credentials(std::string_view& rest, bool unix_socket, Endpoint& e) {
  const std::size_t at = unix_socket ? rest.find("@/") : rest.rfind('@');
  if (at == std::string_view::npos || (unix_socket && rest.starts_with('/'))) return true;
  const std::string_view userinfo = rest.substr(0, at);
  const std::size_t colon = userinfo.find(':');
  rest.remove_prefix(at + 1);
  if (!percent::decode(userinfo.substr(0, colon), e.user)) return false;
  return colon == std::string_view::npos || percent::decode(userinfo.substr(colon + 1), e.password);
}

}  // namespace

Endpoint parse_endpoint(const std::string& url) {
  constexpr std::string_view kScheme = "redis://", kTlsScheme = "rediss://", kUnixScheme = "unix://";
  std::string_view rest(url);
  auto bad = [&](const std::string& why) -> Endpoint {
    throw env::SettingError("STOREAPI_REDIS_URL: " + why +
                            " (expected redis[s]://[user[:password]@]host[:port][/db] or unix://[user[:password]@]/path[?db=N]),"
                            " got '" + masked(url) + "'");
  };
  Endpoint e;
  const bool unix_socket = rest.starts_with(kUnixScheme);
  e.tls = rest.starts_with(kTlsScheme);
  if (!unix_socket && !e.tls && !rest.starts_with(kScheme)) return bad("not a redis://, rediss:// or unix:// URL");
  rest.remove_prefix(unix_socket ? kUnixScheme.size() : e.tls ? kTlsScheme.size() : kScheme.size());
  if (!take_credentials(rest, unix_socket, e)) return bad("a bad %-escape in the user or password");
  if (!e.user.empty() && e.password.empty())
    return bad("a user needs a password (a password alone is written with its colon, :PASSWORD@)");
  if (unix_socket) {
    // A Redis on the node's own host, through its socket file: no TCP stack on either
    // side (10–25 % of Redis's CPU per call here; most of the rest is its wake-ups,
    // bench/RESULTS.md "Where fleet mode's req/s go").
    if (std::size_t query = rest.find('?'); query != std::string_view::npos) {
      std::string_view db = rest.substr(query + 1);
      if (!db.starts_with("db=") || !whole_number(db.substr(3), e.database, 15u))
        return bad("the only query is db=0 to 15");
      rest = rest.substr(0, query);
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (!rest.starts_with('/')) return bad("the socket path must be absolute");
    if (rest.size() >= sizeof address.sun_path) return bad("the socket path is too long");
    std::memcpy(address.sun_path, rest.data(), rest.size());
    std::memcpy(&e.address, &address, sizeof address);
    e.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + rest.size() + 1);
    e.text = rest;
    return e;
  }
  if (std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
    std::string_view db = rest.substr(slash + 1);
    if (!db.empty() && !whole_number(db, e.database, 15u)) return bad("the database must be 0 to 15");
    rest = rest.substr(0, slash);
  }
  std::string_view host = rest, port = "6379";
  if (!rest.empty() && rest.front() == '[') {  // [v6]:port
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return bad("junk after ]");
      port = rest.substr(close + 2);
    }
  } else if (std::size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  unsigned port_number = 0;
  if (host.empty()) return bad("no host");
  if (!whole_number(port, port_number, 65535u) || port_number == 0) return bad("bad port");

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string host_text(host), port_text(port);
  if (int rc = ::getaddrinfo(host_text.c_str(), port_text.c_str(), &hints, &found); rc != 0)
    throw env::SettingError("STOREAPI_REDIS_URL: cannot resolve " + host_text + ": " + gai_strerror(rc));
  std::memcpy(&e.address, found->ai_addr, found->ai_addrlen);
  e.length = found->ai_addrlen;
  ::freeaddrinfo(found);
  e.text = host_text + ":" + port_text;
  e.host = host_text;
  return e;
}

std::size_t append_session_setup(std::string& out, const Endpoint& e) {
  std::size_t commands = 0;
  if (!e.password.empty()) {
    if (e.user.empty()) append_command(out, {"AUTH", e.password});
    else append_command(out, {"AUTH", e.user, e.password});
    ++commands;
  }
  if (e.database != 0) {
    append_command(out, {"SELECT", std::to_string(e.database)});
    ++commands;
  }
  return commands;
}

}  // namespace storeapi::redis
