#pragma once
// Which address a request came from, for the access log. Behind a TLS proxy every peer
// is the proxy; the proxy names the real client in X-Forwarded-For. That header is taken
// only from the one proxy the operator trusts (STOREAPI_TRUSTED_PROXY): from anyone else
// it is whatever the client wished to claim.
#include <string_view>

namespace storeapi::http {

// The address part of a peer written as "address:port" or "[v6 address]:port".
std::string_view peer_host(std::string_view peer) noexcept;

// Whether a request from `peer` ("address:port") came through the trusted proxy (an
// address; empty for none), so that its X-Forwarded-For counts.
bool from_trusted_proxy(std::string_view peer, std::string_view trusted_proxy) noexcept;

// The client of a request from `peer`: the last entry of `forwarded_for` (what the
// trusted proxy appended) when the peer is that proxy and the entry looks like an IP
// address; the peer itself otherwise.
std::string_view client_address(std::string_view peer, std::string_view trusted_proxy,
                                std::string_view forwarded_for) noexcept;

}  // namespace storeapi::http
