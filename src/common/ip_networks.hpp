#pragma once
// Which IP addresses a webhook may reach. Loopback, private, link-local, multicast,
// unspecified and other special-purpose ranges are refused unless the operator's allow
// list names them (STOREAPI_WEBHOOK_ALLOW_NETWORKS), so that an endpoint URL cannot make
// the dispatcher probe its own network (cloud metadata at 169.254.169.254, databases,
// admin ports). storeapi-admin checks the URL's address when an endpoint is added;
// storeapi-dispatch checks every address it is about to connect to, after name resolution.
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::net {

// An IPv6 address; an IPv4 address is held in its IPv4-mapped form (::ffff:a.b.c.d), so
// that both spellings of one address are one value and meet the same rules.
struct IpAddress {
  std::array<std::uint8_t, 16> bytes{};

  bool is_v4() const;
  // a.b.c.d for an IPv4 (or IPv4-mapped) address, RFC 5952 text otherwise.
  std::string text() const;
};

// A dotted-quad IPv4 or an IPv6 address without brackets (inet_pton's forms only).
std::optional<IpAddress> parse_ip(std::string_view text);
// The address a URL's host stands for without asking a resolver: an IP literal (as
// url::host gives it), or 127.0.0.1 for localhost and its subdomains (RFC 6761: loopback
// whatever a resolver says; libcurl resolves them so itself). nullopt for other names.
std::optional<IpAddress> host_address(std::string_view host);
// The address of an AF_INET or AF_INET6 socket address; nullopt for any other family.
std::optional<IpAddress> ip_of(const sockaddr* address, socklen_t length);

struct IpNetwork {
  IpAddress base;
  unsigned prefix = 0;  // in bits of the 128-bit form (an IPv4 /8 is 104)

  bool contains(const IpAddress& address) const;
};

// "a.b.c.d/n" or "x:y::/n"; a bare address is that one host. nullopt when malformed or
// when bits are set past the prefix (10.1.0.0/8 is a typo, not a network).
std::optional<IpNetwork> parse_network(std::string_view text);

// What a special-purpose address is ("loopback", "private", "link-local", ...), nullptr
// for an ordinary public address. IPv6 forms that carry an IPv4 address (NAT64 64:ff9b::/96,
// 6to4 2002::/16) are judged by that address.
const char* special_range(const IpAddress& address);

// 127.0.0.0/8 or ::1 (IPv4-mapped forms included).
bool is_loopback(const IpAddress& address);

// The special-purpose ranges, less those the operator allows.
class DestinationPolicy {
 public:
  // From comma-separated networks ("127.0.0.0/8, ::1/128"; "" allows none); nullopt with
  // a one-line `error` when an entry is malformed.
  static DestinationPolicy parse(std::string_view allowed);
  // From STOREAPI_WEBHOOK_ALLOW_NETWORKS (unset: none allowed); the error names it.
  static DestinationPolicy from_env();

  // Why `address` may not be reached ("10.0.0.7 is a private address ..."), or nullopt
  // when it may.
  std::optional<std::string> refusal(const IpAddress& address) const;

 private:
  std::vector<IpNetwork> allowed_;
};

}  // namespace storeapi::net
