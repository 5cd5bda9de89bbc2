#pragma once
// The shape of API keys and of the Authorization header, checked before any lookup.
#include <string_view>

namespace storeapi::auth {

// The one C++ statement of the prefix (storeapi-admin makes keys with it); SQL's
// api.config('key_prefix') is held to it by tests/api/sql_agreement_pgtest.cpp.
inline constexpr std::string_view kLiveKeyPrefix = "sk_live_";
inline constexpr std::size_t kKeySecretLength = 32;
inline constexpr std::size_t kKeyLength = kLiveKeyPrefix.size() + kKeySecretLength;
inline constexpr std::size_t kDisplayPrefixLength = 12;  // `prefix` shown for a key

// `sk_live_` followed by exactly 32 characters [A-Za-z0-9].
bool is_well_formed_key(std::string_view key) noexcept;

enum class BearerStatus { missing, present };

// Extracts the token of an `Authorization: Bearer <token>` header. Absent header or another
// scheme → missing (docs/DESIGN.md: missing_api_key); the Bearer scheme with anything after it,
// even nothing, → present, and the token is then checked as a key (invalid_api_key).
BearerStatus bearer_token(std::string_view header, bool header_present, std::string_view& token) noexcept;

// The public prefix (first kDisplayPrefixLength characters) of the key in an
// Authorization header, for logs: never more of the key. Empty without a Bearer token.
std::string_view display_prefix(std::string_view authorization) noexcept;

}  // namespace storeapi::auth
