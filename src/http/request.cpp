#include "http/request.hpp"

namespace storeapi::http {

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
