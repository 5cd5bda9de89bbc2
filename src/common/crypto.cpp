#include "common/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <cstdio>

namespace storeapi::crypto {

Sha256 sha256(std::string_view data) {
  Sha256 out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

std::string sha256_hex(std::string_view data) { return hex(sha256(data)); }

Sha256 hmac_sha256(std::string_view key, std::string_view data) {
  Sha256 out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
  return out;
}

bool equal_constant_time(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

void random_bytes(std::span<std::uint8_t> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    std::fputs("fatal: the CSPRNG (RAND_bytes) failed\n", stderr);
    std::abort();
  }
}

std::string random_alnum(std::size_t n) {
  static constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  // 62 * 4 = 248: bytes at or above it are redrawn so every character is equally likely.
  std::string out;
  out.reserve(n);
  std::array<std::uint8_t, 64> pool{};
  while (out.size() < n) {
    random_bytes(pool);
    for (std::uint8_t b : pool) {
      if (b >= 248) continue;
      out.push_back(alphabet[b % 62]);
      if (out.size() == n) break;
    }
  }
  return out;
}

std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0xf];
  }
  return out;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * text.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  std::size_t len = static_cast<std::size_t>(n);
  if (!text.empty() && text.back() == '=') --len;
  if (text.size() >= 2 && text[text.size() - 2] == '=') --len;
  out.resize(len);
  return out;
}

std::string base64url(std::string_view bytes) {
  std::string out = base64(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    else if (c == '/') c = '_';
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string standard;
  standard.reserve(text.size() + 3);
  for (char c : text) {
    bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) standard.push_back(c);
    else if (c == '-') standard.push_back('+');
    else if (c == '_') standard.push_back('/');
    else return std::nullopt;
  }
  while (standard.size() % 4 != 0) standard.push_back('=');
  auto decoded = base64_decode(standard);
  // Only the canonical spelling is accepted: unused low bits of the last character
  // must be zero, so one byte string has exactly one encoding.
  if (!decoded || base64url(*decoded) != text) return std::nullopt;
  return decoded;
}

}  // namespace storeapi::crypto
