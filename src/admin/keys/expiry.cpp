#include "admin/keys/expiry.hpp"

#include "admin/base/errors.hpp"
#include "common/time.hpp"

namespace storeapi::admin {

Expiry parse_expiry(std::string_view text) {
  if (text == "never") return {};
  if (text == "30d") return {.interval = "30 days", .at = std::nullopt};
  if (text == "90d") return {.interval = "90 days", .at = std::nullopt};
  if (text == "1y") return {.interval = "1 year", .at = std::nullopt};
  if (auto t = timefmt::parse_rfc3339(text)) return {.interval = std::nullopt, .at = timefmt::format_ms_utc(*t)};
  throw UsageError("--expires must be never, 30d, 90d, 1y or an RFC 3339 time, got '" +
                   std::string(text) + "'");
}

}  // namespace storeapi::admin
