#pragma once
// Request-body validation: an endpoint declares the fields it takes and gets back their
// values, or the one error the API reports (docs/DECISIONS.md, "Request bodies").
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace storeapi::json {

enum class FieldType : std::uint8_t {
  string,          // a JSON string without U+0000
  string_or_null,  // the same, or null
  int32,           // a JSON integer (no fraction, no exponent) in int32 range
  int64,           // the same, in int64 range
};

struct Field {
  std::string_view name;
  FieldType type;
  bool required = false;
};

struct FieldValue {
  bool present = false;
  bool is_null = false;      // string_or_null given as null
  std::string_view text;     // string types; valid until the parser's next parse
  std::int64_t number = 0;   // integer types
};

// Named after the API error codes they become.
enum class BodyErrorKind : std::uint8_t { invalid_json, parameter_unknown, parameter_missing, parameter_invalid };

struct BodyError {
  BodyErrorKind kind;
  std::optional<std::string_view> param;  // nullopt for invalid_json; valid until the next parse
  std::string_view message;               // static text
  friend bool operator==(const BodyError&, const BodyError&) = default;
};

// One per core: it owns simdjson's parser and a padded scratch copy, both allocated once,
// so parsing allocates nothing afterwards (bodies are capped at 64 KiB by the HTTP layer).
class BodyParser {
 public:
  BodyParser();
  ~BodyParser();
  BodyParser(const BodyParser&) = delete;
  BodyParser& operator=(const BodyParser&) = delete;

  // Validates `body` against `fields` and fills `values` (same size, same order). Returns
  // nullopt on success. `readable` is how many bytes may be read at body.data() (at least
  // body.size()): with simdjson's padding available there the body is parsed in place,
  // otherwise it is first copied into the parser's padded buffer.
  std::optional<BodyError> parse(std::string_view body, std::size_t readable,
                                 std::span<const Field> fields, std::span<FieldValue> values);
  std::optional<BodyError> parse(std::string_view body, std::span<const Field> fields,
                                 std::span<FieldValue> values) {
    return parse(body, body.size(), fields, values);
  }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace storeapi::json
