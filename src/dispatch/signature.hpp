#pragma once
// Standard Webhooks signatures: webhook-signature is "v1,<base64 HMAC-SHA256>" of
// "<webhook-id>.<webhook-timestamp>.<body>", keyed with the base64-decoded part of the
// endpoint's "whsec_..." secret. Several signatures (during a secret rotation) are
// separated by spaces; a receiver accepts the message when any of them matches.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace storeapi::dispatch {

// "v1,..." for one secret; nullopt when `secret` is not "whsec_" + base64.
std::optional<std::string> sign(std::string_view secret, std::string_view message_id,
                                std::int64_t timestamp, std::string_view body);

// The webhook-signature header value: one signature per secret, in order. Malformed
// secrets are skipped; nullopt when none is usable.
std::optional<std::string> signature_header(std::span<const std::string> secrets,
                                            std::string_view message_id, std::int64_t timestamp,
                                            std::string_view body);

}  // namespace storeapi::dispatch
