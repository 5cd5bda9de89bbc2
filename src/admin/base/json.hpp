#pragma once
// The admin tool's JSON output (one object per command), as a convenience over
// json::Writer: that writer does the escaping and the commas, this adds overloads by
// value type, key/value fields, optional values (null when empty) and seconds as numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "json/writer.hpp"

namespace storeapi::admin {

class JsonWriter {
 public:
  JsonWriter() = default;
  // The writer appends to out_: a copy would write into the original's text.
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object() {
    writer_.begin_object();
    return *this;
  }
  JsonWriter& end_object() {
    writer_.end_object();
    return *this;
  }
  JsonWriter& begin_array() {
    writer_.begin_array();
    return *this;
  }
  JsonWriter& end_array() {
    writer_.end_array();
    return *this;
  }
  JsonWriter& key(std::string_view name) {
    writer_.key(name);
    return *this;
  }

  JsonWriter& value(std::string_view text) {
    writer_.string(text);
    return *this;
  }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(std::int64_t number) {
    writer_.integer(number);
    return *this;
  }
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  // Seconds and the like, with millisecond precision: 1.235.
  JsonWriter& value(double number);
  JsonWriter& value(bool flag) {
    writer_.boolean(flag);
    return *this;
  }
  JsonWriter& null() {
    writer_.null();
    return *this;
  }
  JsonWriter& value(const std::optional<std::string>& text) { return text ? value(std::string_view(*text)) : null(); }
  JsonWriter& value(const std::optional<std::int64_t>& number) { return number ? value(*number) : null(); }
  // A value that is already JSON text (e.g. jsonb from PostgreSQL).
  JsonWriter& raw(std::string_view json) {
    writer_.raw(json);
    return *this;
  }

  // Shorthand for key(name).value(v).
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  const std::string& str() const { return out_; }

 private:
  std::string out_;
  json::Writer writer_{out_};  // declared after out_, so constructed after it
};

}  // namespace storeapi::admin
