#include "api/writes/validators.hpp"

#include <algorithm>

namespace storeapi::api {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Number of leading ASCII digits of `text`.
std::size_t leading_digits(std::string_view text) {
  return static_cast<std::size_t>(std::find_if_not(text.begin(), text.end(), is_digit) - text.begin());
}

}  // namespace

bool is_decimal_amount(std::string_view text) {
  const std::size_t integer = leading_digits(text);
  if (integer < 1 || integer > 8) return false;
  if (integer == text.size()) return true;
  if (text[integer] != '.') return false;
  const std::string_view fraction = text.substr(integer + 1);
  return !fraction.empty() && fraction.size() <= 2 && leading_digits(fraction) == fraction.size();
}

std::size_t code_points(std::string_view text) {
  // Every code point has exactly one byte that is not a continuation byte (10xxxxxx).
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool length_between(std::string_view text, std::size_t min, std::size_t max) {
  const std::size_t length = code_points(text);
  return length >= min && length <= max;
}

bool is_email(std::string_view text) {
  constexpr std::string_view local_specials = ".!#$%&'*+/=?^_`{|}~-";
  const auto is_alnum = [](char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const std::size_t at = text.find('@');
  if (text.size() > 254 || at == std::string_view::npos || at == 0 || at > 64) return false;
  const std::string_view local = text.substr(0, at);
  if (!std::all_of(local.begin(), local.end(),
                   [&](char c) { return is_alnum(c) || local_specials.find(c) != std::string_view::npos; }))
    return false;
  std::string_view domain = text.substr(at + 1);
  for (;;) {  // one label per round
    const std::size_t dot = std::min(domain.find('.'), domain.size());
    const std::string_view label = domain.substr(0, dot);
    if (label.empty() || label.size() > 63 || !is_alnum(label.front()) || !is_alnum(label.back()) ||
        !std::all_of(label.begin(), label.end(), [&](char c) { return is_alnum(c) || c == '-'; }))
      return false;
    if (dot == domain.size()) return true;
    domain.remove_prefix(dot + 1);
  }
}

bool is_one_of(std::string_view value, std::span<const std::string_view> allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace storeapi::api
