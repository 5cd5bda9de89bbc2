#include "json/body.hpp"

#include "json/big_numbers.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

namespace storeapi::json {
namespace {

// The HTTP layer refuses larger bodies (413), so buffers of this size never grow.
constexpr std::size_t max_body_size = 64 * 1024;

BodyResult invalid_json(std::string_view message) { return {BodyStatus::invalid_json, std::nullopt, message}; }

BodyResult field_error(BodyStatus status, std::string_view field, std::string_view message) {
  return {status, field, message};
}

// The read_* functions store `value` into `out` when it has the declared type; otherwise
// they return the message of the parameter_invalid error (empty on success).

std::string_view read_string(simdjson::dom::element value, bool nullable, FieldValue& out) {
  if (nullable && value.is_null()) {
    out.is_null = true;
    return {};
  }
  if (value.get_string().get(out.text) != simdjson::SUCCESS) {
    return nullable ? "Expected a string or null." : "Expected a string.";
  }
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
  if (out.text.find('\0') != std::string_view::npos) return "Strings cannot contain the character U+0000.";
  return {};
}

std::string_view read_integer(simdjson::dom::element value, bool int32, FieldValue& out) {
  using simdjson::dom::element_type;
  const std::string_view out_of_range =
      int32 ? "Expected an integer between -2147483648 and 2147483647."
            : "Expected an integer between -9223372036854775808 and 9223372036854775807.";
  // simdjson types 1.0 and 1e2 as doubles: only literal integers count.
  const element_type kind = value.type();
  if (kind != element_type::INT64 && kind != element_type::UINT64) return "Expected an integer.";
  if (value.get_int64().get(out.number) != simdjson::SUCCESS) return out_of_range;  // above int64
  if (int32 && (out.number < std::numeric_limits<std::int32_t>::min() ||
                out.number > std::numeric_limits<std::int32_t>::max())) {
    return out_of_range;
  }
  return {};
}

std::string_view read_value(simdjson::dom::element value, FieldType type, FieldValue& out) {
  if (type == FieldType::int32 || type == FieldType::int64) return read_integer(value, type == FieldType::int32, out);
  return read_string(value, type == FieldType::string_or_null, out);
}

}  // namespace

struct BodyParser::State {
  simdjson::dom::parser parser;
  std::vector<char> padded;  // a copy of the body followed by SIMDJSON_PADDING bytes

  // A padded copy of `body`, writable (big numbers are rewritten in it).
  std::span<char> copy(std::string_view body) {
    if (padded.size() < body.size() + simdjson::SIMDJSON_PADDING) padded.resize(body.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(padded.data(), body.data(), body.size());
    return {padded.data(), body.size()};
  }

  simdjson::simdjson_result<simdjson::dom::element> parse(std::string_view body, std::size_t readable) {
    if (readable - body.size() >= simdjson::SIMDJSON_PADDING) return parser.parse(body.data(), body.size(), false);
    const auto text = copy(body);
    return parser.parse(text.data(), text.size(), false);
  }
};

void BodyTexts::reset(std::size_t body_size) {
  used_ = 0;
  if (body_size <= kInline) {
    storage_ = inline_;
    capacity_ = kInline;
    return;
  }
  if (heap_size_ < body_size) {
    heap_ = std::make_unique_for_overwrite<char[]>(body_size);
    heap_size_ = body_size;
  }
  storage_ = heap_.get();
  capacity_ = heap_size_;
}

std::string_view BodyTexts::keep(std::string_view text) {
  // Never false for texts of the body reset() was sized for; checked all the same, since
  // growing would move the texts kept so far.
  if (text.size() > capacity_ - used_) throw std::logic_error("BodyTexts: more text than the body held");
  char* at = storage_ + used_;
  std::memcpy(at, text.data(), text.size());
  used_ += text.size();
  return {at, text.size()};
}

BodyParser::BodyParser() : state_(std::make_unique<State>()) {
  if (state_->parser.allocate(max_body_size) != simdjson::SUCCESS) throw std::bad_alloc();
  state_->padded.resize(max_body_size + simdjson::SIMDJSON_PADDING);
}

BodyParser::~BodyParser() = default;

BodyResult BodyParser::parse(std::string_view body, std::size_t readable, std::span<const Field> fields,
                             std::span<FieldValue> values, BodyTexts& texts) {
  assert(fields.size() == values.size() && readable >= body.size());
  std::fill(values.begin(), values.end(), FieldValue{});
  texts.reset(body.size());

  // An empty body counts as {}: only the missing fields can be wrong.
  if (!body.empty()) {
    simdjson::dom::element root;
    auto error = state_->parse(body, readable).get(root);
    if (error == simdjson::NUMBER_ERROR) {
      const auto text = state_->copy(body);
      if (rewrite_big_numbers(text)) error = state_->parser.parse(text.data(), text.size(), false).get(root);
    }
    if (error != simdjson::SUCCESS) return invalid_json("The request body is not valid JSON.");
    simdjson::dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) {
      return invalid_json("The request body must be a JSON object.");
    }

    // The first unknown, repeated or mistyped field in document order is reported.
    // A plain member, not a structured binding: clang before 16 cannot capture a binding
    // in the lambda below, and the fuzz targets are built with Debian's clang-14.
    for (const auto member : object) {
      const std::string_view key = member.key;
      const simdjson::dom::element value = member.value;
      const auto field = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.name == key; });
      if (field == fields.end()) {
        return field_error(BodyStatus::parameter_unknown, texts.keep(key), "This endpoint does not take this field.");
      }
      FieldValue& out = values[static_cast<std::size_t>(field - fields.begin())];
      if (out.present) {
        return field_error(BodyStatus::parameter_invalid, field->name, "This field is given more than once.");
      }
      out.present = true;
      const std::string_view problem = read_value(value, field->type, out);
      if (!problem.empty()) return field_error(BodyStatus::parameter_invalid, field->name, problem);
      // Out of the parser, which the core's next request reuses.
      if (!out.text.empty()) out.text = texts.keep(out.text);
    }
  }

  // Then the first missing field in declaration order.
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].required && !values[i].present) {
      return field_error(BodyStatus::parameter_missing, fields[i].name, "This field is required.");
    }
  }
  return {};
}

}  // namespace storeapi::json
