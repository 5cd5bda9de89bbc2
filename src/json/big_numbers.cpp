#include "json/big_numbers.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>

namespace storeapi::json {
namespace {

enum class NumberForm { malformed, integer, fractional };

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_number_char(char c) { return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// Classifies a token by RFC 8259's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
NumberForm classify(std::string_view token) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < token.size() && is_digit(token[i])) ++i;
    return i - start;
  };
  if (i < token.size() && token[i] == '-') ++i;
  const std::size_t int_start = i;
  const std::size_t int_digits = digits();
  if (int_digits == 0 || (int_digits > 1 && token[int_start] == '0')) return NumberForm::malformed;
  bool fractional = false;
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (digits() == 0) return NumberForm::malformed;
    fractional = true;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    if (digits() == 0) return NumberForm::malformed;
    fractional = true;
  }
  if (i != token.size()) return NumberForm::malformed;
  return fractional ? NumberForm::fractional : NumberForm::integer;
}

bool fits_int64(std::string_view token) {
  std::int64_t value;
  return std::from_chars(token.data(), token.data() + token.size(), value).ec == std::errc{};
}

// Overwrites `token` with `replacement` and pads with spaces (whitespace may follow a number).
void overwrite(std::span<char> token, std::string_view replacement) {
  std::fill(std::copy(replacement.begin(), replacement.end(), token.begin()), token.end(), ' ');
}

}  // namespace

bool rewrite_big_numbers(std::span<char> text) {
  // The shortest integer outside int64 has 19 digits (9223372036854775808), so this always fits.
  static constexpr std::string_view out_of_range_integer = "9223372036854775808";
  static constexpr std::string_view not_an_integer = "0.5";  // every fractional token has >= 3 chars
  bool rewritten = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {  // skip the string literal, escapes included
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    if (c != '-' && !is_digit(c)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_number_char(text[end])) ++end;
    const std::span<char> token = text.subspan(i, end - i);
    const std::string_view token_text(token.data(), token.size());
    switch (classify(token_text)) {
      case NumberForm::integer:
        if (!fits_int64(token_text)) {
          overwrite(token, out_of_range_integer);
          rewritten = true;
        }
        break;
      case NumberForm::fractional:
        overwrite(token, not_an_integer);
        rewritten = true;
        break;
      case NumberForm::malformed:
        break;
    }
    i = end;
  }
  return rewritten;
}

}  // namespace storeapi::json
