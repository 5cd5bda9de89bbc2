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
  std::string_view text;     // string types; points into the BodyTexts of the parse
  std::int64_t number = 0;   // integer types
};

// How a body's validation came out: ok, or its failure, named after the API error code
// it becomes.
enum class BodyStatus : std::uint8_t { ok, invalid_json, parameter_unknown, parameter_missing, parameter_invalid };

// The validation's result: ok, or the one error the API reports, with the parameter at
// fault and why.
struct [[nodiscard]] BodyResult {
  BodyStatus status = BodyStatus::ok;
  // When not ok: nullopt for invalid_json; a declared field's name, or an unknown one's in
  // the BodyTexts of the parse.
  std::optional<std::string_view> param;
  std::string_view message;  // when not ok: static text

  bool ok() const noexcept { return status == BodyStatus::ok; }
  friend bool operator==(const BodyResult&, const BodyResult&) = default;
};

// The texts a parse found (string values, an unknown field's name), copied out of the
// per-core parser into storage its caller owns: a request keeps it in the frame of the
// endpoint that parsed, so the values stay valid across that endpoint's suspensions,
// while other requests on the core parse their bodies. Bodies of up to kInline bytes fit
// in the object itself (no allocation: a write's frame comes from the core's pool);
// larger ones take one allocation. Neither copied nor moved: the views point into it.
class BodyTexts {
 public:
  static constexpr std::size_t kInline = 512;

  BodyTexts() = default;
  BodyTexts(const BodyTexts&) = delete;
  BodyTexts& operator=(const BodyTexts&) = delete;

 private:
  friend class BodyParser;
  // Room for every text of a body of `body_size` bytes: they are distinct parts of it,
  // and a JSON string unescaped is never longer than it is written. Forgets earlier texts.
  void reset(std::size_t body_size);
  std::string_view keep(std::string_view text);

  char inline_[kInline];
  std::unique_ptr<char[]> heap_;
  std::size_t heap_size_ = 0;
  char* storage_ = inline_;
  std::size_t capacity_ = kInline;
  std::size_t used_ = 0;
};

// One per core: it owns simdjson's parser and a padded scratch copy, both allocated once,
// so parsing allocates nothing afterwards (bodies are capped at 64 KiB by the HTTP layer).
// Nothing it returns points into it: what outlives the parse is in the caller's BodyTexts.
// Neither copied (state_ is a unique_ptr) nor moved (the declared destructor leaves no
// implicit move).
class BodyParser {
 public:
  BodyParser();
  ~BodyParser();

  // Validates `body` against `fields` and fills `values` (same size, same order), their
  // texts kept in `texts`. `readable` is how many bytes may be
  // read at body.data() (at least body.size()): with simdjson's padding available there
  // the body is parsed in place, otherwise it is first copied into the parser's padded
  // buffer.
  BodyResult parse(std::string_view body, std::size_t readable, std::span<const Field> fields,
                   std::span<FieldValue> values, BodyTexts& texts);
  BodyResult parse(std::string_view body, std::span<const Field> fields, std::span<FieldValue> values,
                   BodyTexts& texts) {
    return parse(body, body.size(), fields, values, texts);
  }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace storeapi::json
