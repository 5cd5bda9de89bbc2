#pragma once
// A JSON writer appending to a caller-owned string, so a hot path that reuses its buffer
// allocates nothing once the buffer is warm. The writer inserts the commas; the caller
// is trusted to nest correctly (keys only inside objects, one value per key). The members
// are defined here so that they inline: a document is hundreds of tiny calls.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace storeapi::json {

// Appends `text` as a JSON string literal, quotes included. `"`, `\` and control
// characters are escaped; each maximal ill-formed UTF-8 subsequence (overlongs, surrogates,
// code points above U+10FFFF, truncated or stray bytes) becomes U+FFFD, so data that is
// not valid UTF-8 can never produce invalid JSON.
void append_string(std::string& out, std::string_view text);

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  Writer& begin_object() { return open('{'); }
  Writer& end_object() { return close('}'); }
  Writer& begin_array() { return open('['); }
  Writer& end_array() { return close(']'); }

  Writer& key(std::string_view name) {
    before_item();
    append_string(out_, name);
    out_ += ':';
    after_item_ = false;  // the value that follows takes no comma
    return *this;
  }

  Writer& string(std::string_view text) {
    before_item();
    append_string(out_, text);
    after_item_ = true;
    return *this;
  }

  Writer& integer(std::int64_t value) {
    char digits[20];  // "-9223372036854775808" is the longest
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    return raw({digits, static_cast<std::size_t>(end - digits)});
  }

  Writer& boolean(bool value) { return raw(value ? "true" : "false"); }
  Writer& null() { return raw("null"); }

  // An already rendered JSON value (e.g. a resource rendered by PostgreSQL), copied as is.
  Writer& raw(std::string_view json) {
    before_item();
    out_ += json;
    after_item_ = true;
    return *this;
  }

 private:
  // Writes the separating comma when a value or key follows a sibling.
  void before_item() {
    if (after_item_) out_ += ',';
  }

  Writer& open(char bracket) {
    before_item();
    out_ += bracket;
    after_item_ = false;  // the first member takes no comma
    return *this;
  }

  Writer& close(char bracket) {
    out_ += bracket;
    after_item_ = true;
    return *this;
  }

  std::string& out_;
  bool after_item_ = false;
};

}  // namespace storeapi::json
