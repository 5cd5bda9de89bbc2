#pragma once
// Percent-decoding (RFC 3986 §2.1): URL query strings and the credentials of a URL.
#include <string>
#include <string_view>

namespace storeapi::percent {

// Appends `text` decoded to `out`; false (with `out` partly written) when a `%` is not
// followed by two hex digits. `+` stays a plus.
bool decode(std::string_view text, std::string& out);

}  // namespace storeapi::percent
