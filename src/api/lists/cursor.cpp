#include "api/lists/cursor.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/crypto.hpp"

namespace storeapi::api {
namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kPayloadSize = 1 + 8 + 16;  // version, created_at, id
constexpr std::size_t kMacSize = 16;
constexpr std::size_t kCursorBytes = kPayloadSize + kMacSize;
static_assert(crypto::base64url_length(kCursorBytes) == kCursorLength);

// Separates cursor MACs from anything else the secret may ever sign.
constexpr std::string_view kDomain = "storeapi cursor v1";

using Payload = std::array<std::uint8_t, kPayloadSize>;

Payload payload(const CursorPosition& position) {
  Payload out{};
  out[0] = kVersion;
  const auto t = static_cast<std::uint64_t>(position.created_at);
  for (int i = 0; i < 8; ++i) out[1 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(t >> (56 - 8 * i));
  std::copy(position.id.bytes.begin(), position.id.bytes.end(), out.begin() + 9);
  return out;
}

CursorPosition position(const Payload& payload) {
  std::uint64_t t = 0;
  for (std::size_t i = 1; i <= 8; ++i) t = t << 8 | payload[i];
  CursorPosition out;
  out.created_at = static_cast<timefmt::Micros>(t);
  std::copy(payload.begin() + 9, payload.end(), out.id.bytes.begin());
  return out;
}

// HMAC-SHA256 over the payload and the binding's digest, truncated.
std::array<std::uint8_t, kMacSize> mac(std::string_view secret, const crypto::Sha256& binding, const Payload& payload) {
  std::array<std::uint8_t, kPayloadSize + sizeof(crypto::Sha256)> data;
  std::copy(payload.begin(), payload.end(), data.begin());
  std::copy(binding.begin(), binding.end(), data.begin() + kPayloadSize);
  const crypto::Sha256 full = crypto::hmac_sha256(secret, crypto::as_chars(data));
  std::array<std::uint8_t, kMacSize> out;
  std::copy_n(full.begin(), kMacSize, out.begin());
  return out;
}

}  // namespace

CursorBinding::CursorBinding(RouteId route, const Uuid& store, bool ascending) {
  std::copy(kDomain.begin(), kDomain.end(), bytes_.begin());
  size_ = kDomain.size();
  put(static_cast<std::uint8_t>(route));
  std::copy(store.bytes.begin(), store.bytes.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(size_));
  size_ += store.bytes.size();
  put(ascending ? 1 : 0);
}

void CursorBinding::reserve(std::size_t n) const {
  if (size_ + n > bytes_.size()) throw std::logic_error("CursorBinding: more than its capacity");
}

void CursorBinding::add(std::optional<timefmt::Micros> time) {
  reserve(9);
  put(time ? 1 : 0);
  const auto t = static_cast<std::uint64_t>(time.value_or(0));
  for (int shift = 56; shift >= 0; shift -= 8) put(static_cast<std::uint8_t>(t >> shift));
}

void CursorBinding::add(std::optional<std::string_view> text) {
  const std::string_view value = text.value_or(std::string_view());
  reserve(5 + value.size());
  put(text ? 1 : 0);
  const auto length = static_cast<std::uint32_t>(value.size());
  for (int shift = 24; shift >= 0; shift -= 8) put(static_cast<std::uint8_t>(length >> shift));
  // std::copy, not memcpy: an absent filter's view has a null data() (memcpy's arguments
  // must not be null even for size 0; UBSan reports it).
  std::copy(value.begin(), value.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(size_));
  size_ += value.size();
}

crypto::Sha256 CursorBinding::digest() const { return crypto::sha256(crypto::as_chars(bytes())); }

void encode_cursor(std::string_view secret, const crypto::Sha256& binding, const CursorPosition& position, char* out) {
  std::array<std::uint8_t, kCursorBytes> bytes;
  const Payload body = payload(position);
  const auto tag = mac(secret, binding, body);
  std::copy(body.begin(), body.end(), bytes.begin());
  std::copy(tag.begin(), tag.end(), bytes.begin() + kPayloadSize);
  crypto::base64url_encode(bytes, out);
}

std::optional<CursorPosition> decode_cursor(std::string_view secret, const crypto::Sha256& binding,
                                            std::string_view text) {
  std::array<std::uint8_t, kCursorBytes> bytes;
  if (text.size() != kCursorLength || crypto::base64url_decode(text, bytes) != kCursorBytes) return std::nullopt;
  Payload body;
  std::copy_n(bytes.begin(), kPayloadSize, body.begin());
  if (body[0] != kVersion) return std::nullopt;
  const auto tag = mac(secret, binding, body);
  if (!crypto::equal_constant_time(tag, std::span(bytes).subspan(kPayloadSize))) return std::nullopt;
  return position(body);
}

}  // namespace storeapi::api
