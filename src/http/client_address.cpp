#include "http/client_address.hpp"

#include <algorithm>

namespace storeapi::http {
namespace {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// IPv4 or IPv6 text (at most INET6_ADDRSTRLEN - 1 characters of hex digits, '.' and
// ':'): anything else is not logged, so a header cannot forge or break a log line.
bool looks_like_ip(std::string_view s) noexcept {
  return !s.empty() && s.size() <= 45 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
  });
}

}  // namespace

std::string_view peer_host(std::string_view peer) noexcept {
  const std::size_t colon = peer.rfind(':');
  std::string_view host = colon == std::string_view::npos ? peer : peer.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host;
}

bool from_trusted_proxy(std::string_view peer, std::string_view trusted_proxy) noexcept {
  return !trusted_proxy.empty() && peer_host(peer) == trusted_proxy;
}

std::string_view client_address(std::string_view peer, std::string_view trusted_proxy,
                                std::string_view forwarded_for) noexcept {
  if (forwarded_for.empty() || !from_trusted_proxy(peer, trusted_proxy)) return peer;
  const std::size_t comma = forwarded_for.rfind(',');
  const std::string_view last = trim(comma == std::string_view::npos ? forwarded_for : forwarded_for.substr(comma + 1));
  return looks_like_ip(last) ? last : peer;
}

}  // namespace storeapi::http
