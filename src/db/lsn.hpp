#pragma once
// WAL positions (LSNs) as PostgreSQL prints them ("16/B374D848") and as the fleet stores
// them in Redis: sixteen hex digits, zero-padded, so that comparing the texts compares
// the positions (the record script compares strings: Lua numbers cannot hold 64 bits).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storeapi::db {

// "X/Y" (hex, as pg_lsn prints) as a number; nullopt when it is not one.
std::optional<std::uint64_t> parse_lsn(std::string_view text);

// Sixteen lower-case hex digits.
std::string fixed_width_lsn(std::uint64_t lsn);
// The inverse of fixed_width_lsn; nullopt for anything else.
std::optional<std::uint64_t> parse_fixed_width_lsn(std::string_view text);

}  // namespace storeapi::db
