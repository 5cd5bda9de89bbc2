#pragma once
// The request methods routing distinguishes; every other method is `other` (405 on a known path).
#include <cstdint>
#include <string_view>

namespace storeapi::http {

enum class Method : std::uint8_t { get, head, post, patch, options, other };

// From the request line's method token (case-sensitive, as HTTP methods are).
constexpr Method parse_method(std::string_view name) {
  if (name == "GET") return Method::get;
  if (name == "HEAD") return Method::head;
  if (name == "POST") return Method::post;
  if (name == "PATCH") return Method::patch;
  if (name == "OPTIONS") return Method::options;
  return Method::other;
}

}  // namespace storeapi::http
