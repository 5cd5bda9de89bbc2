#pragma once
// Paging cursors (docs/DECISIONS.md, "Cursors"). A cursor is the position of the last record
// of a page, (created_at, id), authenticated with the server secret together with
// everything the page depended on except `limit`: the endpoint, the store, the order, the
// filters and the time bounds. Any change to either makes it invalid, so a cursor can only
// continue the list it came from. 41 bytes (version, created_at, id, a 128-bit truncated
// HMAC-SHA256) in base64url: 55 characters. Encoding and checking allocate nothing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/crypto.hpp"
#include "common/time.hpp"
#include "common/uuid.hpp"
#include "api/routing/router.hpp"

namespace storeapi::api {

struct CursorPosition {
  timefmt::Micros created_at = 0;
  Uuid id;
  friend bool operator==(const CursorPosition&, const CursorPosition&) = default;
};

// What a cursor is bound to besides its position, in a canonical byte form: values are
// appended in a fixed order, each marked present or absent, texts with their length, so
// two different requests never give the same bytes. Room for the four time bounds and
// three filter texts of up to 500 bytes each (the list parameters allow far less);
// overflowing it is a programming error (std::logic_error).
class CursorBinding {
 public:
  static constexpr std::size_t kCapacity = 2048;

  CursorBinding(RouteId route, const Uuid& store, bool ascending);
  void add(std::optional<timefmt::Micros> time);
  void add(std::optional<std::string_view> text);
  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), size_}; }
  // SHA-256 of the bytes: what cursors are signed with, small enough to keep across awaits.
  crypto::Sha256 digest() const;

 private:
  void reserve(std::size_t n) const;
  void put(std::uint8_t byte) { bytes_[size_++] = byte; }

  std::array<std::uint8_t, kCapacity> bytes_{};
  std::size_t size_ = 0;
};

// The spec's limit on a cursor a client sends; longer ones are refused before decoding.
inline constexpr std::size_t kCursorMaxLength = 500;
// The length of every cursor this server issues.
inline constexpr std::size_t kCursorLength = 55;

// Writes the cursor of `position` (kCursorLength characters) to `out`; `binding` is a
// CursorBinding's digest.
void encode_cursor(std::string_view secret, const crypto::Sha256& binding, const CursorPosition& position, char* out);

// The position `text` carries if this server issued it (same secret) for exactly this
// binding; nullopt for anything else: malformed, altered, or issued for another list.
std::optional<CursorPosition> decode_cursor(std::string_view secret, const crypto::Sha256& binding,
                                            std::string_view text);

}  // namespace storeapi::api
