#pragma once
// The --expires value of `key create`.
#include <optional>
#include <string>
#include <string_view>

namespace storeapi::admin {

// Exactly one of the two is set, or neither for "never".
struct Expiry {
  std::optional<std::string> interval;  // "30 days", "90 days", "1 year": from now
  std::optional<std::string> at;        // an absolute time, RFC 3339 UTC, milliseconds
};

// never | 30d | 90d | 1y | an RFC 3339 date-time (a past one is allowed, for tests).
// Throws UsageError on anything else.
Expiry parse_expiry(std::string_view text);

}  // namespace storeapi::admin
