#pragma once
// Thin wrappers over OpenSSL libcrypto: hashing, MACs, randomness and base64.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace storeapi::crypto {

using Sha256 = std::array<std::uint8_t, 32>;

Sha256 sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

Sha256 hmac_sha256(std::string_view key, std::string_view data);

// Constant-time comparison, for MACs.
bool equal_constant_time(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

// Fills `out` from the CSPRNG (RAND_bytes); aborts if the generator fails.
void random_bytes(std::span<std::uint8_t> out);

// `n` characters drawn uniformly from [A-Za-z0-9] by the CSPRNG (rejection sampling).
std::string random_alnum(std::size_t n);

std::string hex(std::span<const std::uint8_t> bytes);

std::string base64(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

// RFC 4648 §5 alphabet, no padding.
std::string base64url(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

// The same into caller buffers, without allocating (cursors on the request path).
constexpr std::size_t base64url_length(std::size_t bytes) { return (bytes * 4 + 2) / 3; }
// Writes base64url_length(bytes.size()) characters to `out`.
void base64url_encode(std::span<const std::uint8_t> bytes, char* out);
// The number of bytes decoded into `out`; nullopt when `text` is not canonical base64url
// (alphabet, length, unused low bits of the last character zero, so one byte string has
// exactly one encoding) or does not fit in `out`.
std::optional<std::size_t> base64url_decode(std::string_view text, std::span<std::uint8_t> out);

inline std::string_view as_chars(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace storeapi::crypto
