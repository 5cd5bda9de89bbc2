#include "http/request.hpp"

namespace storeapi::http {

std::string_view method_name(Method m) noexcept {
  switch (m) {
    case Method::GET: return "GET";
    case Method::HEAD: return "HEAD";
    case Method::POST: return "POST";
    case Method::PUT: return "PUT";
    case Method::PATCH: return "PATCH";
    case Method::DELETE: return "DELETE";
    case Method::OPTIONS: return "OPTIONS";
    case Method::OTHER: break;
  }
  return "OTHER";
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    unsigned x = static_cast<unsigned char>(a[i]);
    unsigned y = static_cast<unsigned char>(b[i]);
    if (x - 'A' < 26u) x |= 0x20;
    if (y - 'A' < 26u) y |= 0x20;
    if (x != y) return false;
  }
  return true;
}

std::string_view Request::header(std::string_view name, bool* found) const noexcept {
  if (headers) {
    for (const Header& h : *headers) {
      if (iequals(h.name, name)) {
        if (found) *found = true;
        return h.value;
      }
    }
  }
  if (found) *found = false;
  return {};
}

}  // namespace storeapi::http
