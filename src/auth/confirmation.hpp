#pragma once
// How a server confirms an invalidation on the invalidation channel: `ack:<payload>`,
// once all of its cores have applied `payload` (docs/DECISIONS.md, "Server invalidation
// channel"). Written once for both ends: the server that answers
// (auth/invalidation.hpp) and the admin tool that waits (admin/base/confirmations.hpp).
#include <string_view>

namespace storeapi::auth {

inline constexpr std::string_view kConfirmationPrefix = "ack:";

// A server's answer, not an invalidation: servers ignore each other's.
inline bool is_confirmation(std::string_view payload) noexcept { return payload.starts_with(kConfirmationPrefix); }

}  // namespace storeapi::auth
