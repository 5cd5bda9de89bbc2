#include "admin/base/validate.hpp"

#include "admin/base/errors.hpp"
#include "common/regex.hpp"

namespace storeapi::admin {

void check_matches(const std::string& value, const char* pattern, const std::string& message) {
  if (!std::regex_match(value, std::regex(pattern))) throw UsageError(message);
}

void check_email(const std::string& value, const std::string& flag) {
  check_matches(value, R"([^@\s]+@[^@\s]+)", "--" + flag + " must be an e-mail address, got '" + value + "'");
}

void check_url(const std::string& value, const std::string& flag) {
  check_matches(value, R"(https?://[^\s/]+\S*)", "--" + flag + " must be an http(s) URL, got '" + value + "'");
}

void check_plan(const std::string& plan) {
  if (plan != "free" && plan != "pro" && plan != "advanced")
    throw UsageError("--plan must be free, pro or advanced, got '" + plan + "'");
}

}  // namespace storeapi::admin
