// Request-body validation on arbitrary JSON against field tables the fuzzer composes (the
// shapes of every write: strings, nullable strings, int32 and int64 fields, required or
// optional). Beyond not crashing: parsing in place (with simdjson's padding) and from the
// copy (without) agree; a reused parser answers the same twice, the first answer's texts
// intact; an accepted body has every
// required field, and its numbers are within their type's range.
#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "json/body.hpp"

using namespace storeapi::json;

namespace {

constexpr std::string_view kNames[] = {"quantity", "reason", "note", "tracking_number", "carrier", "price", "a", ""};
constexpr std::size_t kPadding = 64;

void require(bool ok, const char* what, std::string_view body) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\nbody: %.*s\n", what, static_cast<int>(body.size()), body.data());
  std::abort();
}

bool same(const FieldValue& a, const FieldValue& b) {
  return a.present == b.present && a.is_null == b.is_null && a.text == b.text && a.number == b.number;
}

bool same(const BodyResult& a, const std::vector<FieldValue>& va, const BodyResult& b,
          const std::vector<FieldValue>& vb) {
  if (a != b) return false;
  if (!a.ok()) return true;
  for (std::size_t i = 0; i < va.size(); ++i)
    if (!same(va[i], vb[i])) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static BodyParser parser;  // one per core in the server: reused across requests
  FuzzedDataProvider input(data, size);
  std::vector<Field> fields(input.ConsumeIntegralInRange<std::size_t>(0, 4));
  for (auto& f : fields) {
    f.name = kNames[input.ConsumeIntegralInRange<std::size_t>(0, std::size(kNames) - 1)];
    f.type = static_cast<FieldType>(input.ConsumeIntegralInRange<int>(0, 3));
    f.required = input.ConsumeBool();
  }
  const std::string body = input.ConsumeRemainingBytesAsString();

  // Each parse keeps its texts in a BodyTexts of its own, so the values of one survive the
  // next parse (a BodyTexts past its room would throw: an abort here).
  std::vector<FieldValue> copied(fields.size()), in_place(fields.size()), again(fields.size());
  BodyTexts texts_copied, texts_in_place, texts_again;
  const auto error_copied = parser.parse(body, fields, copied, texts_copied);

  std::string padded = body;
  padded.append(kPadding, '\0');
  const std::string_view in_buffer(padded.data(), body.size());
  const auto error_in_place = parser.parse(in_buffer, padded.size(), fields, in_place, texts_in_place);
  require(same(error_copied, copied, error_in_place, in_place), "in place and copied agree", body);

  const auto error_again = parser.parse(body, fields, again, texts_again);
  require(same(error_copied, copied, error_again, again), "the same answer when parsed again", body);
  if (!error_again.ok()) return 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const FieldValue& v = again[i];
    require(!fields[i].required || v.present, "required fields are present", body);
    require(!v.is_null || fields[i].type == FieldType::string_or_null, "null only where allowed", body);
    if (fields[i].type == FieldType::int32 && v.present)
      require(v.number >= std::numeric_limits<std::int32_t>::min() && v.number <= std::numeric_limits<std::int32_t>::max(),
              "int32 in range", body);
    if ((fields[i].type == FieldType::string || fields[i].type == FieldType::string_or_null) && v.present)
      require(v.text.find('\0') == std::string_view::npos, "no NUL in strings", body);
  }
  return 0;
}
