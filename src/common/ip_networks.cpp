#include "common/ip_networks.hpp"

#include "common/ascii.hpp"
#include "common/env.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>

namespace storeapi::net {
namespace {

constexpr std::array<std::uint8_t, 12> kV4MappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

IpAddress mapped_v4(const std::uint8_t* four) {
  IpAddress a;
  std::memcpy(a.bytes.data(), kV4MappedPrefix.data(), kV4MappedPrefix.size());
  std::memcpy(a.bytes.data() + 12, four, 4);
  return a;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

struct SpecialRange {
  IpNetwork network;
  const char* name;
};

// IANA's special-purpose registries (RFC 6890 and successors), as far as a webhook could
// misuse them, and the clouds' metadata and platform endpoints, named apart (those inside
// a range above them are named by their cloud); the IPv6 forms that embed an IPv4 address
// are handled in special_range. Order matters where ranges nest: the first match names
// the address. The clouds' addresses, from their own documentation:
//   AWS   169.254.169.254, fd00:ec2::254 (IPv6 IMDS), 169.254.170.2 (ECS task metadata):
//         docs.aws.amazon.com, "Access instance metadata for an EC2 instance", "Amazon ECS
//         task metadata endpoint"
//   Azure 169.254.169.254 (IMDS), 168.63.129.16 (WireServer, the platform's virtual IP,
//         a public address): learn.microsoft.com, "What is IP address 168.63.129.16?"
//   Google Cloud 169.254.169.254 (metadata.google.internal): cloud.google.com, "About VM
//         metadata"
//   Alibaba Cloud 100.100.100.200: alibabacloud.com, "Instance metadata"
//   Oracle Cloud 169.254.169.254, 192.0.0.192 (legacy): docs.oracle.com, "Getting Instance
//         Metadata"
//   Tencent Cloud 169.254.0.23 (metadata.tencentyun.com): tencentcloud.com, "Viewing
//         Instance Metadata"
const std::vector<SpecialRange>& special_ranges() {
  static const std::vector<SpecialRange> ranges = [] {
    const std::pair<const char*, const char*> table[] = {
        {"168.63.129.16/32", "cloud metadata (Azure)"},
        {"100.100.100.200/32", "cloud metadata (Alibaba Cloud)"},
        {"fd00:ec2::254/128", "cloud metadata (AWS)"},
        {"0.0.0.0/8", "unspecified"},              // "this network"; 0.0.0.0 reaches the host itself
        {"10.0.0.0/8", "private"},                 // RFC 1918
        {"100.64.0.0/10", "shared (carrier-grade NAT)"},  // RFC 6598
        {"127.0.0.0/8", "loopback"},               // is_loopback's ranges
        {"169.254.0.0/16", "link-local"},          // cloud metadata lives at 169.254.169.254
        {"172.16.0.0/12", "private"},
        {"192.0.0.0/24", "reserved"},              // IETF protocol assignments
        {"192.0.2.0/24", "reserved"},              // documentation
        {"192.168.0.0/16", "private"},
        {"198.18.0.0/15", "reserved"},             // benchmarking
        {"198.51.100.0/24", "reserved"},           // documentation
        {"203.0.113.0/24", "reserved"},            // documentation
        {"224.0.0.0/4", "multicast"},
        {"240.0.0.0/4", "reserved"},               // 255.255.255.255 (broadcast) included
        {"::/128", "unspecified"},
        {"::1/128", "loopback"},
        {"::/96", "reserved"},                     // deprecated IPv4-compatible addresses
        {"64:ff9b:1::/48", "reserved"},            // local-use NAT64
        {"100::/64", "reserved"},                  // discard-only
        {"2001::/32", "reserved"},                 // Teredo: an obfuscated IPv4 address
        {"2001:db8::/32", "reserved"},             // documentation
        {"fc00::/7", "private"},                   // unique local
        {"fe80::/10", "link-local"},
        {"fec0::/10", "reserved"},                 // deprecated site-local
        {"ff00::/8", "multicast"},
    };
    std::vector<SpecialRange> out;
    for (const auto& [network, name] : table) out.push_back({*parse_network(network), name});
    return out;
  }();
  return ranges;
}

}  // namespace

bool IpAddress::is_v4() const { return std::memcmp(bytes.data(), kV4MappedPrefix.data(), kV4MappedPrefix.size()) == 0; }

std::string IpAddress::text() const {
  char buf[INET6_ADDRSTRLEN];
  if (is_v4()) return inet_ntop(AF_INET, bytes.data() + 12, buf, sizeof buf);
  return inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf);
}

std::optional<IpAddress> parse_ip(std::string_view text) {
  std::string s(text);
  std::uint8_t buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return mapped_v4(buf);
  IpAddress a;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) return a;
  return std::nullopt;
}

std::optional<IpAddress> host_address(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  constexpr std::string_view kLocalhost = "localhost";
  if (host.size() >= kLocalhost.size() && ascii::iequals(host.substr(host.size() - kLocalhost.size()), kLocalhost) &&
      (host.size() == kLocalhost.size() || host[host.size() - kLocalhost.size() - 1] == '.'))
    return parse_ip("127.0.0.1");
  return parse_ip(host);
}

std::optional<IpAddress> ip_of(const sockaddr* address, socklen_t length) {
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return mapped_v4(reinterpret_cast<const std::uint8_t*>(&in->sin_addr));
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    IpAddress a;
    std::memcpy(a.bytes.data(), &in6->sin6_addr, 16);
    return a;
  }
  return std::nullopt;
}

bool IpNetwork::contains(const IpAddress& address) const {
  unsigned whole = prefix / 8, rest = prefix % 8;
  if (std::memcmp(base.bytes.data(), address.bytes.data(), whole) != 0) return false;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (base.bytes[whole] & mask) == (address.bytes[whole] & mask);
}

std::optional<IpNetwork> parse_network(std::string_view text) {
  auto slash = text.find('/');
  auto address = parse_ip(text.substr(0, slash));
  if (!address) return std::nullopt;
  unsigned width = address->is_v4() ? 32 : 128;
  unsigned prefix = width;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || prefix > width)
      return std::nullopt;
  }
  IpNetwork network{*address, prefix + (128 - width)};
  // Every bit past the prefix must be zero: the network, masked, is the address itself.
  for (unsigned bit = network.prefix; bit < 128; ++bit)
    if (address->bytes[bit / 8] & (0x80 >> (bit % 8))) return std::nullopt;
  return network;
}

const char* special_range(const IpAddress& address) {
  static const IpNetwork nat64 = *parse_network("64:ff9b::/96");
  static const IpNetwork six_to_four = *parse_network("2002::/16");
  if (nat64.contains(address)) return special_range(mapped_v4(address.bytes.data() + 12));
  if (six_to_four.contains(address)) return special_range(mapped_v4(address.bytes.data() + 2));
  for (const auto& range : special_ranges())
    if (range.network.contains(address)) return range.name;
  return nullptr;
}

bool is_loopback(const IpAddress& address) {
  static const IpNetwork v4 = *parse_network("127.0.0.0/8"), v6 = *parse_network("::1/128");
  return v4.contains(address) || v6.contains(address);
}

namespace {

// Why `entry` (which parse_network refused) is no network, when it is the one mistake a
// reader cannot see: an address with bits set past its prefix. Empty otherwise.
std::string host_bits_reason(std::string_view entry) {
  const std::size_t slash = entry.find('/');
  if (slash == std::string_view::npos) return "";
  const auto address = parse_ip(entry.substr(0, slash));
  if (!address) return "";
  const std::string_view prefix = entry.substr(slash + 1);
  for (unsigned bits = 0; bits <= (address->is_v4() ? 32u : 128u); ++bits) {
    if (prefix != std::to_string(bits)) continue;
    IpAddress first = *address;
    const unsigned from = bits + (address->is_v4() ? 96 : 0);
    for (unsigned bit = from; bit < 128; ++bit) first.bytes[bit / 8] &= static_cast<std::uint8_t>(~(0x80 >> (bit % 8)));
    return ": its address has bits set past the /" + std::string(prefix) + " prefix; the network is " + first.text() +
           "/" + std::string(prefix) + ", one host is written alone (" + address->text() + ")";
  }
  return "";
}

}  // namespace

DestinationPolicy DestinationPolicy::parse(std::string_view allowed) {
  DestinationPolicy policy;
  while (!trimmed(allowed).empty()) {
    auto comma = allowed.find(',');
    std::string_view entry = trimmed(allowed.substr(0, comma));
    auto network = parse_network(entry);
    if (!network)
      throw env::SettingError("expected comma-separated networks such as 127.0.0.0/8 or ::1/128, got '" +
                              std::string(entry) + "'" + host_bits_reason(entry));
    policy.allowed_.push_back(*network);
    allowed = comma == std::string_view::npos ? std::string_view{} : allowed.substr(comma + 1);
  }
  return policy;
}

DestinationPolicy DestinationPolicy::from_env() {
  const char* value = env::get("STOREAPI_WEBHOOK_ALLOW_NETWORKS");
  try {
    return parse(value ? value : "");
  } catch (const env::SettingError& e) {
    throw env::SettingError(std::string("STOREAPI_WEBHOOK_ALLOW_NETWORKS: ") + e.what());
  }
}

std::optional<std::string> DestinationPolicy::refusal(const IpAddress& address) const {
  const char* range = special_range(address);
  if (!range) return std::nullopt;
  for (const auto& network : allowed_)
    if (network.contains(address)) return std::nullopt;
  const char* article = std::strchr("aeiou", range[0]) ? " is an " : " is a ";
  return address.text() + article + range + " address; webhooks go only to public addresses unless "
         "STOREAPI_WEBHOOK_ALLOW_NETWORKS allows it";
}

}  // namespace storeapi::net
