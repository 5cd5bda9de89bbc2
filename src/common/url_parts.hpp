#pragma once
// Parts of an http(s) or smtp(s) URL read with libcurl's own parser, the one that connects
// to them: there is then no spelling of a host that a check reads one way and the
// transfer another.
#include <optional>
#include <string>

namespace storeapi::url {

// The host libcurl will connect to: an IPv4 address in any spelling it accepts (0x7f.1,
// 2130706433, 0177.0.0.1, 127.1) comes back as a.b.c.d, an IPv6 one without brackets or
// zone; a name as written. nullopt when libcurl cannot parse the URL.
std::optional<std::string> host(const std::string& url);

// The URL without user, password, query and fragment (scheme://host[:port]/path), for
// logs; "(unparsable URL)" when libcurl cannot parse it.
std::string without_secrets(const std::string& url);

}  // namespace storeapi::url
