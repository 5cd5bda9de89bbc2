#pragma once
// A JSON writer appending to a caller-owned string, so a hot path that reuses its buffer
// allocates nothing once the buffer is warm. The writer inserts the commas; the caller
// is trusted to nest correctly (keys only inside objects, one value per key).
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

  Writer& begin_object();
  Writer& end_object();
  Writer& begin_array();
  Writer& end_array();
  Writer& key(std::string_view name);

  Writer& string(std::string_view text);
  Writer& integer(std::int64_t value);
  Writer& boolean(bool value);
  Writer& null();
  // An already rendered JSON value (e.g. a resource rendered by PostgreSQL), copied as is.
  Writer& raw(std::string_view json);

 private:
  // Writes the separating comma when a value or key follows a sibling.
  void before_item();
  Writer& open(char bracket);
  Writer& close(char bracket);

  std::string& out_;
  bool after_item_ = false;
};

}  // namespace storeapi::json
