#include "dispatch/excerpt.hpp"

#include <simdjson.h>

namespace storeapi::dispatch {
namespace {

bool is_text(std::string_view text) {
  return text.find('\0') == std::string_view::npos && simdjson::validate_utf8(text.data(), text.size());
}

}  // namespace

std::string response_excerpt(std::string_view head, std::size_t total_bytes) {
  head = head.substr(0, kExcerptBytes);
  // A cut inside a character leaves up to three of its bytes at the end.
  std::size_t droppable = head.size() < total_bytes ? std::min<std::size_t>(3, head.size()) : 0;
  for (std::size_t drop = 0; drop <= droppable; ++drop) {
    std::string_view candidate = head.substr(0, head.size() - drop);
    if (is_text(candidate)) return std::string(candidate);
  }
  std::string note = "(";  // built step by step: GCC 12 misreads "(" + std::string (-Wrestrict)
  note += std::to_string(total_bytes);
  note += " bytes, not UTF-8 text)";
  return note;
}

}  // namespace storeapi::dispatch
