#include "common/crypto.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <cstdio>
#include <memory>

namespace storeapi::crypto {
namespace {

// OpenSSL 3 looks an algorithm up by name on every EVP_sha256()-style call, taking a lock
// and bumping reference counts that every core shares. Fetched once, and used through a
// context of each thread's own, hashing shares nothing between cores: a key's SHA-256
// costs 114 ns instead of 415 (842 with two threads), an HMAC 599 ns instead of 1,722
// (bench/micro/crypto_bench.cpp, bench/RESULTS.md).
[[noreturn]] void openssl_failed(const char* what) {
  std::fprintf(stderr, "fatal: OpenSSL: %s failed\n", what);
  std::abort();
}

EVP_MD* sha256_algorithm() {
  static EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!fetched) openssl_failed("fetching SHA256");
    return fetched;
  }();
  return md;
}

EVP_MD_CTX* thread_digest() {
  thread_local std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx) openssl_failed("EVP_MD_CTX_new");
  return ctx.get();
}

// An HMAC-SHA256 context of this thread; each use sets its key.
EVP_MAC_CTX* thread_hmac() {
  static EVP_MAC* hmac = [] {
    EVP_MAC* fetched = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (!fetched) openssl_failed("fetching HMAC");
    return fetched;
  }();
  thread_local std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx = [] {
    std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> made(EVP_MAC_CTX_new(hmac), &EVP_MAC_CTX_free);
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_construct_end()};
    if (!made || EVP_MAC_CTX_set_params(made.get(), params) != 1) openssl_failed("setting up HMAC-SHA256");
    return made;
  }();
  return ctx.get();
}

}  // namespace

Sha256 sha256(std::string_view data) {
  Sha256 out{};
  unsigned int len = 0;
  EVP_MD_CTX* ctx = thread_digest();
  if (EVP_DigestInit_ex2(ctx, sha256_algorithm(), nullptr) != 1 || EVP_DigestUpdate(ctx, data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx, out.data(), &len) != 1)
    openssl_failed("SHA256");
  return out;
}

std::string sha256_hex(std::string_view data) { return hex(sha256(data)); }

Sha256 hmac_sha256(std::string_view key, std::string_view data) {
  Sha256 out{};
  std::size_t len = 0;
  EVP_MAC_CTX* ctx = thread_hmac();
  // A null key would mean "the previous call's key" to EVP_MAC_init: an empty key still
  // gets a pointer.
  static constexpr unsigned char kNoKeyBytes = 0;
  const auto* key_bytes = key.empty() ? &kNoKeyBytes : reinterpret_cast<const unsigned char*>(key.data());
  if (EVP_MAC_init(ctx, key_bytes, key.size(), nullptr) != 1 ||
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1 ||
      EVP_MAC_final(ctx, out.data(), &len, out.size()) != 1)
    openssl_failed("HMAC-SHA256");
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

namespace {

constexpr char kBase64UrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The 6-bit value of a base64url character, or -1.
int base64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

}  // namespace

void base64url_encode(std::span<const std::uint8_t> bytes, char* out) {
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = std::uint32_t{bytes[i]} << 16 | std::uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    *out++ = kBase64UrlAlphabet[v >> 18];
    *out++ = kBase64UrlAlphabet[v >> 12 & 63];
    *out++ = kBase64UrlAlphabet[v >> 6 & 63];
    *out++ = kBase64UrlAlphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return;
  const std::uint32_t v = std::uint32_t{bytes[i]} << 16 | (rest == 2 ? std::uint32_t{bytes[i + 1]} << 8 : 0);
  *out++ = kBase64UrlAlphabet[v >> 18];
  *out++ = kBase64UrlAlphabet[v >> 12 & 63];
  if (rest == 2) *out = kBase64UrlAlphabet[v >> 6 & 63];
}

std::optional<std::size_t> base64url_decode(std::string_view text, std::span<std::uint8_t> out) {
  if (text.size() % 4 == 1) return std::nullopt;
  const std::size_t size = text.size() / 4 * 3 + (text.size() % 4 == 0 ? 0 : text.size() % 4 - 1);
  if (size > out.size()) return std::nullopt;
  std::uint32_t bits = 0;
  int pending = 0;  // bits held in `bits`
  std::size_t written = 0;
  for (char c : text) {
    const int v = base64url_value(c);
    if (v < 0) return std::nullopt;
    bits = bits << 6 | static_cast<std::uint32_t>(v);
    pending += 6;
    if (pending >= 8) {
      pending -= 8;
      out[written++] = static_cast<std::uint8_t>(bits >> pending);
      bits &= (1u << pending) - 1;
    }
  }
  if (bits != 0) return std::nullopt;  // non-zero unused bits: not the canonical spelling
  return written;
}

std::string base64url(std::string_view bytes) {
  std::string out(base64url_length(bytes.size()), '\0');
  base64url_encode({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, out.data());
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string out(text.size() / 4 * 3 + 2, '\0');
  const auto size = base64url_decode(text, {reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  if (!size) return std::nullopt;
  out.resize(*size);
  return out;
}

}  // namespace storeapi::crypto
