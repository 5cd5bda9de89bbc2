#pragma once
// ASCII text helpers for protocol tokens (header names, schemes, media types), which are
// case-insensitive in ASCII only: no locale is ever consulted.
#include <string_view>

namespace storeapi::ascii {

bool iequals(std::string_view a, std::string_view b) noexcept;

}  // namespace storeapi::ascii
