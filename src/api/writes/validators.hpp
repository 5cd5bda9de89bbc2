#pragma once
// Value rules shared by endpoints, for body fields and query parameters alike. Each answers
// yes or no; the endpoint reports 400 parameter_invalid naming its parameter.
#include <cstddef>
#include <span>
#include <string_view>

namespace storeapi::api {

// The spec's amount format, ^\d{1,8}(\.\d{1,2})?$ with ASCII digits: "149", "149.5",
// "00000000.00". No sign, exponent, spaces or bare dot.
bool is_decimal_amount(std::string_view text);

// Length in Unicode code points of `text`, which must be valid UTF-8 (as every string from
// the body parser and the query parser is).
std::size_t code_points(std::string_view text);

// min <= code_points(text) <= max.
bool length_between(std::string_view text, std::size_t min, std::size_t max);

// An e-mail address as HTML's <input type=email> defines a valid one (WHATWG): a local
// part of letters, digits and .!#$%&'*+/=?^_`{|}~- , '@', then dot-separated labels of
// letters, digits and inner hyphens, at most 63 characters each. On top of that the
// RFC 5321 sizes: local part at most 64 characters, the whole at most 254.
bool is_email(std::string_view text);

bool is_one_of(std::string_view value, std::span<const std::string_view> allowed);

}  // namespace storeapi::api
