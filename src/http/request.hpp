#pragma once
// A parsed HTTP request. Every view points into the connection's buffers and stays valid
// until the response to this request has been written.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/ascii.hpp"
#include "http/method.hpp"

namespace storeapi::http {

struct Header {
  std::string_view name;
  std::string_view value;
};

struct Request {
  Method method = Method::other;
  std::string_view method_text;
  std::string_view target;  // as sent: path and query
  std::string_view path;    // before '?'
  std::string_view query;   // after '?', still percent-encoded; empty when absent
  std::string_view body;    // de-chunked; followed by at least kBodyPadding readable bytes
  std::string_view request_id;
  std::string_view trace_id;  // of its traceparent header, or a new one (common/trace_context.hpp)
  const std::vector<Header>* headers = nullptr;
  std::uint8_t http_minor = 1;
  bool keep_alive = true;

  // Padding after the body so simdjson can parse it in place.
  static constexpr std::size_t kBodyPadding = 64;

  // First header with this name (ASCII case-insensitive), or empty with found=false.
  std::string_view header(std::string_view name, bool* found = nullptr) const noexcept;
  // The first header of each of `names` (ASCII case-insensitive), in one pass over the
  // headers, for a handler that needs several: values[i] is names[i]'s, nullopt when absent.
  // `values` has one element per name.
  void first_headers(std::span<const std::string_view> names,
                     std::span<std::optional<std::string_view>> values) const noexcept;
};

// Header names and values compare in ASCII only (common/ascii.hpp).
using ascii::iequals;

}  // namespace storeapi::http
