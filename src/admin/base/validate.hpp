#pragma once
// Checks on command-line values; each throws UsageError naming the flag.
#include <string>

namespace storeapi::admin {

// UsageError(message) unless the whole of `value` matches the ECMAScript `pattern`.
void check_matches(const std::string& value, const char* pattern, const std::string& message);

// something@something, no spaces.
void check_email(const std::string& value, const std::string& flag);

// http:// or https:// followed by a host, no spaces.
void check_url(const std::string& value, const std::string& flag);

// free, pro or advanced.
void check_plan(const std::string& plan);

}  // namespace storeapi::admin
