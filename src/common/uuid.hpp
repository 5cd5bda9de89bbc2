#pragma once
// UUIDs as 16 bytes; parsing accepts only the canonical 8-4-4-4-12 hex form
// (either case), which is what PostgreSQL prints and what the API documents.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storeapi {

struct Uuid {
  std::array<std::uint8_t, 16> bytes{};

  static std::optional<Uuid> parse(std::string_view text);
  // Lower-case canonical form, 36 characters.
  std::string str() const;
  void write(char* out) const noexcept;  // the same into out[0..36)
  friend bool operator==(const Uuid&, const Uuid&) = default;
};

// True when `text` is a canonical uuid; cheaper than parse when the value is not needed.
bool is_uuid(std::string_view text);

}  // namespace storeapi
