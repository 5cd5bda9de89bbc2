#include "dispatch/signature.hpp"

#include "common/crypto.hpp"

namespace storeapi::dispatch {
namespace {

constexpr std::string_view kSecretPrefix = "whsec_";

}  // namespace

std::optional<std::string> sign(std::string_view secret, std::string_view message_id,
                                std::int64_t timestamp, std::string_view body) {
  if (!secret.starts_with(kSecretPrefix)) return std::nullopt;
  auto key = crypto::base64_decode(secret.substr(kSecretPrefix.size()));
  if (!key || key->empty()) return std::nullopt;
  std::string signed_content;
  signed_content.reserve(message_id.size() + body.size() + 24);
  signed_content.append(message_id).append(".").append(std::to_string(timestamp)).append(".").append(body);
  return "v1," + crypto::base64(crypto::as_chars(crypto::hmac_sha256(*key, signed_content)));
}

std::optional<std::string> signature_header(std::span<const std::string> secrets,
                                            std::string_view message_id, std::int64_t timestamp,
                                            std::string_view body) {
  std::string header;
  for (const auto& secret : secrets) {
    auto signature = sign(secret, message_id, timestamp, body);
    if (!signature) continue;
    if (!header.empty()) header.push_back(' ');
    header += *signature;
  }
  if (header.empty()) return std::nullopt;
  return header;
}

}  // namespace storeapi::dispatch
