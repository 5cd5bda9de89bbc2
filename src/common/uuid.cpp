#include "common/uuid.hpp"

namespace storeapi {
namespace {

constexpr bool is_dash_position(std::size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<Uuid> Uuid::parse(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid out;
  std::size_t byte = 0;
  for (std::size_t i = 0; i < 36;) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    int hi = hex_value(text[i]);
    int lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.bytes[byte++] = static_cast<std::uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return out;
}

bool is_uuid(std::string_view text) { return Uuid::parse(text).has_value(); }

void Uuid::write(char* out) const noexcept {
  static constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    *out++ = digits[bytes[i] >> 4];
    *out++ = digits[bytes[i] & 0xf];
  }
}

std::string Uuid::str() const {
  std::string out(36, '\0');
  write(out.data());
  return out;
}

}  // namespace storeapi
