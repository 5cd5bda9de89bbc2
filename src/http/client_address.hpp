#pragma once
// Which address a request came from, for the access log. Behind a TLS proxy every peer
// is the proxy; the proxy names the real client in X-Forwarded-For. That header is taken
// only from the one proxy the operator trusts (STOREAPI_TRUSTED_PROXY): from anyone else
// it is whatever the client wished to claim.
#include <span>
#include <string_view>

namespace storeapi::http {

// `peer`: the connection's remote address as text. `trusted_proxy`: the proxy's address,
// empty for none. `forwarded_for`: the request's X-Forwarded-For, empty when absent.
// Returns the last X-Forwarded-For entry (the one the trusted proxy appended) when the
// peer is that proxy and the entry looks like an IP address; the peer otherwise.
std::string_view client_address(std::string_view peer, std::string_view trusted_proxy,
                                std::string_view forwarded_for) noexcept;

// The remote address of a connected socket as text ("192.0.2.7", "2001:db8::5"; an
// IPv4-mapped IPv6 address as IPv4), written to `out`; "-" when it cannot be read.
std::string_view peer_address(int fd, std::span<char, 46> out) noexcept;

}  // namespace storeapi::http
