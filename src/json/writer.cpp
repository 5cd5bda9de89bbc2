#include "json/writer.hpp"

#include <array>
#include <bit>
#include <cstring>

namespace storeapi::json {
namespace {

// Bytes that cannot be copied verbatim: control characters, '"', '\' and every non-ASCII
// byte (which must be checked as UTF-8).
constexpr std::array<bool, 256> special_bytes = [] {
  std::array<bool, 256> table{};
  for (int b = 0; b < 256; ++b) table[b] = b < 0x20 || b == '"' || b == '\\' || b >= 0x80;
  return table;
}();

// The end of the run of plain bytes starting at `i`: the index of the first special byte, or
// text.size(). Looks at 8 bytes per step, since most strings are nothing but plain ASCII.
std::size_t plain_run_end(std::string_view text, std::size_t i) {
  static_assert(std::endian::native == std::endian::little, "the first special byte is the lowest flagged one");
  constexpr std::uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t x;
    std::memcpy(&x, text.data() + i, 8);
    const std::uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    // The high bit of each byte that is < 0x20, '"' or '\\' (SWAR "has less than" and
    // "has zero"), or >= 0x80. Borrows only flag bytes above a truly flagged one, so the
    // lowest flag is exact.
    const std::uint64_t special =
        (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | x) & highs;
    if (special != 0) return i + static_cast<std::size_t>(std::countr_zero(special)) / 8;
  }
  while (i < text.size() && !special_bytes[static_cast<unsigned char>(text[i])]) ++i;
  return i;
}

constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at text[0] (a byte >= 0x80), or, when
// ill-formed, minus the length of its maximal subpart (Unicode §3.9 "U+FFFD substitution
// of maximal subparts"): the bytes that one U+FFFD replaces.
int utf8_sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  int length;
  // The second byte's valid range is narrower after some leads: that is what excludes
  // overlongs (E0, F0), surrogates (ED) and code points above U+10FFFF (F4).
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return -1;  // a stray continuation byte, C0/C1 (always overlong) or F5..FF
  }
  for (int i = 1; i < length; ++i) {
    if (static_cast<std::size_t>(i) >= text.size()) return -i;
    const auto b = static_cast<unsigned char>(text[i]);
    const bool ok = i == 1 ? b >= low && b <= high : is_continuation(b);
    if (!ok) return -i;
  }
  return length;
}

void append_escaped_control(std::string& out, unsigned char c) {
  switch (c) {
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: {
      static constexpr char digits[] = "0123456789abcdef";
      const char escape[] = {'\\', 'u', '0', '0', digits[c >> 4], digits[c & 0xF]};
      out.append(escape, sizeof escape);
    }
  }
}

}  // namespace

void append_string(std::string& out, std::string_view text) {
  // Most strings are one plain run: the loop below never runs for them.
  std::size_t i = plain_run_end(text, 0);
  out += '"';
  out.append(text.data(), i);
  while (i < text.size()) {
    // text[i] is special: escape it, or check it as UTF-8.
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      append_escaped_control(out, c);
      ++i;
    } else if (const int length = utf8_sequence_length(text.substr(i)); length > 0) {
      out.append(text.data() + i, static_cast<std::size_t>(length));
      i += static_cast<std::size_t>(length);
    } else {
      out += replacement_character;
      i += static_cast<std::size_t>(-length);
    }
    const std::size_t run = plain_run_end(text, i);
    out.append(text.data() + i, run - i);
    i = run;
  }
  out += '"';
}

}  // namespace storeapi::json
