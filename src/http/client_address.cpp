#include "http/client_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

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

std::string_view client_address(std::string_view peer, std::string_view trusted_proxy,
                                std::string_view forwarded_for) noexcept {
  if (trusted_proxy.empty() || peer != trusted_proxy || forwarded_for.empty()) return peer;
  const std::size_t comma = forwarded_for.rfind(',');
  const std::string_view last = trim(comma == std::string_view::npos ? forwarded_for : forwarded_for.substr(comma + 1));
  return looks_like_ip(last) ? last : peer;
}

std::string_view peer_address(int fd, std::span<char, 46> out) noexcept {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  const char* text = nullptr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    if (address.ss_family == AF_INET) {
      text = ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, out.data(), out.size());
    } else if (address.ss_family == AF_INET6) {
      const in6_addr& a6 = reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr;
      text = IN6_IS_ADDR_V4MAPPED(&a6) ? ::inet_ntop(AF_INET, &a6.s6_addr[12], out.data(), out.size())
                                       : ::inet_ntop(AF_INET6, &a6, out.data(), out.size());
    }
  }
  if (text == nullptr) return "-";
  return {out.data(), std::strlen(out.data())};
}

}  // namespace storeapi::http
