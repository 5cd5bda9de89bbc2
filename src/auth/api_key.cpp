#include "auth/api_key.hpp"

#include "common/ascii.hpp"

namespace storeapi::auth {

bool is_well_formed_key(std::string_view key) noexcept {
  if (key.size() != kKeyLength || !key.starts_with(kLiveKeyPrefix)) return false;
  for (char c : key.substr(kLiveKeyPrefix.size())) {
    bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum) return false;
  }
  return true;
}

BearerStatus bearer_token(std::string_view header, bool header_present, std::string_view& token) noexcept {
  token = {};
  if (!header_present) return BearerStatus::missing;
  constexpr std::string_view scheme = "bearer";
  if (header.size() < scheme.size() || !ascii::iequals(header.substr(0, scheme.size()), scheme))
    return BearerStatus::missing;
  std::string_view rest = header.substr(scheme.size());
  if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return BearerStatus::missing;  // "Bearerx"
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  token = rest;
  return BearerStatus::present;
}

std::string_view display_prefix(std::string_view authorization) noexcept {
  std::string_view token;
  bearer_token(authorization, true, token);
  return token.substr(0, kDisplayPrefixLength);
}

}  // namespace storeapi::auth
