#include "json/writer.hpp"

#include <array>
#include <charconv>

namespace storeapi::json {
namespace {

// Bytes that cannot be copied verbatim: control characters, '"', '\' and every non-ASCII
// byte (which must be checked as UTF-8).
constexpr std::array<bool, 256> special_bytes = [] {
  std::array<bool, 256> table{};
  for (int b = 0; b < 256; ++b) table[b] = b < 0x20 || b == '"' || b == '\\' || b >= 0x80;
  return table;
}();

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
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // Copy the run of plain ASCII in one append: most strings are nothing but that.
    std::size_t run = i;
    while (run < text.size() && !special_bytes[static_cast<unsigned char>(text[run])]) ++run;
    out.append(text.data() + i, run - i);
    if (run == text.size()) break;
    i = run;

    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else {
        append_escaped_control(out, c);
      }
      ++i;
      continue;
    }
    const int length = utf8_sequence_length(text.substr(i));
    if (length > 0) {
      out.append(text.data() + i, static_cast<std::size_t>(length));
      i += static_cast<std::size_t>(length);
    } else {
      out += replacement_character;
      i += static_cast<std::size_t>(-length);
    }
  }
  out += '"';
}

void Writer::before_item() {
  if (after_item_) out_ += ',';
}

Writer& Writer::open(char bracket) {
  before_item();
  out_ += bracket;
  after_item_ = false;  // the first member takes no comma
  return *this;
}

Writer& Writer::close(char bracket) {
  out_ += bracket;
  after_item_ = true;
  return *this;
}

Writer& Writer::begin_object() { return open('{'); }
Writer& Writer::end_object() { return close('}'); }
Writer& Writer::begin_array() { return open('['); }
Writer& Writer::end_array() { return close(']'); }

Writer& Writer::key(std::string_view name) {
  before_item();
  append_string(out_, name);
  out_ += ':';
  after_item_ = false;  // the value that follows takes no comma
  return *this;
}

Writer& Writer::string(std::string_view text) {
  before_item();
  append_string(out_, text);
  after_item_ = true;
  return *this;
}

Writer& Writer::integer(std::int64_t value) {
  before_item();
  char digits[20];  // "-9223372036854775808" is the longest
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out_.append(digits, static_cast<std::size_t>(end - digits));
  after_item_ = true;
  return *this;
}

Writer& Writer::boolean(bool value) { return raw(value ? "true" : "false"); }

Writer& Writer::null() { return raw("null"); }

Writer& Writer::raw(std::string_view json) {
  before_item();
  out_ += json;
  after_item_ = true;
  return *this;
}

}  // namespace storeapi::json
