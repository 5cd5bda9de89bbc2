#include "common/percent.hpp"

#include <algorithm>
#include <charconv>

namespace storeapi::percent {

bool decode(std::string_view text, std::string& out) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    // Exactly two hex digits; from_chars takes no sign or prefix for an unsigned base-16 value.
    const char* digits = text.data() + i + 1;
    const char* end = text.data() + std::min(i + 3, text.size());
    unsigned char byte;
    const auto [stop, error] = std::from_chars(digits, end, byte, 16);
    if (error != std::errc{} || stop != digits + 2) return false;
    out += static_cast<char>(byte);
    i += 2;
  }
  return true;
}

}  // namespace storeapi::percent
