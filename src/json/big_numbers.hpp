#pragma once
// simdjson refuses numbers it cannot represent (integers outside [-2^63, 2^64), doubles
// beyond ±1.8e308 or with very long integer parts) with NUMBER_ERROR, although they are
// valid JSON. The API answers such a value like any other number of the wrong type or
// range — parameter_invalid naming its field — so after a NUMBER_ERROR the body is parsed
// again with those numbers rewritten in place.
#include <span>

namespace storeapi::json {

// Rewrites, outside string literals, each well-formed JSON number that simdjson may refuse
// into one it accepts with the same verdict from the body validator: an integer that does
// not fit int64 becomes 9223372036854775808 (out of range for every integer field), a number
// with a fraction or exponent becomes 0.5 (not an integer). Each replacement is no longer
// than the original; spaces fill the rest. Malformed numbers (`01`, `1.`, `-`) are left as
// they are, so the body stays invalid JSON. Returns whether anything was rewritten.
bool rewrite_big_numbers(std::span<char> text);

}  // namespace storeapi::json
