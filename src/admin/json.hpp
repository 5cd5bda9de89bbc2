#pragma once
// A minimal JSON text builder for the admin tool's output (one object per command).
// Commas and nesting are tracked here so callers only state keys and values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::admin {

// `text` as a JSON string literal, quotes included (UTF-8 passes through unchanged).
std::string json_quote(std::string_view text);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  JsonWriter& null();
  JsonWriter& value(const std::optional<std::string>& text);
  JsonWriter& value(const std::optional<std::int64_t>& number);
  // A value that is already JSON text (e.g. jsonb from PostgreSQL).
  JsonWriter& raw(std::string_view json);

  // Shorthand for key(name).value(v).
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void before_value();

  std::string out_;
  // One entry per open object/array: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace storeapi::admin
