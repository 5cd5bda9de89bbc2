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

void Request::first_headers(std::span<const std::string_view> names,
                            std::span<std::optional<std::string_view>> values) const noexcept {
  for (std::optional<std::string_view>& value : values) value.reset();
  if (!headers) return;
  std::size_t missing = names.size();
  for (const Header& h : *headers) {
    if (missing == 0) return;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!values[i] && iequals(h.name, names[i])) {
        values[i] = h.value;
        --missing;
        break;
      }
    }
  }
}

}  // namespace storeapi::http
