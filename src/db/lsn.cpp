#include "db/lsn.hpp"

#include <charconv>

namespace storeapi::db {
namespace {

// 1 to `max_digits` hex digits, the whole of `text`.
std::optional<std::uint64_t> hex_number(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint64_t> parse_lsn(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto high = hex_number(text.substr(0, slash), 8);
  const auto low = hex_number(text.substr(slash + 1), 8);
  if (!high || !low) return std::nullopt;
  return *high << 32 | *low;
}

std::string fixed_width_lsn(std::uint64_t lsn) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, lsn >>= 4) text[static_cast<std::size_t>(i)] = kDigits[lsn & 0xf];
  return text;
}

std::optional<std::uint64_t> parse_fixed_width_lsn(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  return hex_number(text, 16);
}

}  // namespace storeapi::db
