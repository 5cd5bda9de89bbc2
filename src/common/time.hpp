#pragma once
// Timestamps as microseconds since the Unix epoch (UTC), the precision PostgreSQL keeps.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storeapi::timefmt {

using Micros = std::int64_t;

// RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM); 'T' and 'Z' may be
// lower case. Fractions beyond microseconds are truncated. Anything else: nullopt.
std::optional<Micros> parse_rfc3339(std::string_view text);

// PostgreSQL's ISO output for timestamptz in a UTC session, e.g. "2026-11-21 20:39:02.123+00"
// (fraction optional, 1-6 digits).
std::optional<Micros> parse_pg_timestamptz(std::string_view text);

// "2026-11-21T20:39:02.123Z": UTC, milliseconds (truncated), the API's output format.
// `out` must hold 24 characters.
void format_ms_utc(Micros t, char* out);
std::string format_ms_utc(Micros t);

// Wall clock now, in microseconds since the epoch.
Micros now_micros();

}  // namespace storeapi::timefmt
