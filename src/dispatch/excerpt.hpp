#pragma once
// What is kept of a webhook receiver's answer: its first bytes, as text PostgreSQL can
// store (valid UTF-8, no NUL).
#include <cstddef>
#include <string>
#include <string_view>

namespace storeapi::dispatch {

constexpr std::size_t kExcerptBytes = 1000;

// `head` holds the first bytes of an answer of `total_bytes`. Returns its first
// kExcerptBytes, cut back to a whole UTF-8 character, or a note such as
// "(2048 bytes, not UTF-8 text)" when the answer is binary.
std::string response_excerpt(std::string_view head, std::size_t total_bytes);

}  // namespace storeapi::dispatch
