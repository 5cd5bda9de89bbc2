#pragma once
// Timestamps as microseconds since the Unix epoch (UTC), the precision PostgreSQL keeps.
#include <cstddef>
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

// `t` as PostgreSQL timestamptz input with every microsecond, e.g.
// "2026-11-21 20:39:02.123456+00"; years before 1 are written the PostgreSQL way ("0001-…
// BC" is year 0). Covers every instant parse_rfc3339 yields. `out` must hold
// kPgTimestampMax characters; returns the number written.
inline constexpr std::size_t kPgTimestampMax = 34;
std::size_t format_pg_utc(Micros t, char* out);

// Wall clock now, in microseconds since the epoch.
Micros now_micros();

}  // namespace storeapi::timefmt
