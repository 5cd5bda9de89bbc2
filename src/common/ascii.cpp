#include "common/ascii.hpp"

namespace storeapi::ascii {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    unsigned x = static_cast<unsigned char>(a[i]);
    unsigned y = static_cast<unsigned char>(b[i]);
    if (x - 'A' < 26u) x |= 0x20;
    if (y - 'A' < 26u) y |= 0x20;
    if (x != y) return false;
  }
  return true;
}

}  // namespace storeapi::ascii
