#include "json_schema.hpp"

#include <algorithm>
#include <set>

#include "common/time.hpp"
#include "common/uuid.hpp"

namespace storeapi::testing {
namespace {

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether `text` matches `pattern`, where '9' is a digit and every other character itself.
bool shaped(std::string_view text, std::string_view pattern) {
  if (text.size() != pattern.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (pattern[i] == '9' ? !digits(text.substr(i, 1)) : text[i] != pattern[i]) return false;
  }
  return true;
}

// What is wrong with the string `s` as a `field`, or empty.
std::string string_problem(const Field& field, std::string_view s) {
  switch (field.kind) {
    case Kind::uuid:
      if (!is_uuid(s) || Uuid::parse(s)->str() != s) return "not a lower-case uuid";
      break;
    case Kind::timestamp:
      if (!shaped(s, "9999-99-99T99:99:99.999Z") || !timefmt::parse_rfc3339(s)) return "not an RFC 3339 UTC ms time";
      break;
    case Kind::amount: {
      const std::size_t dot = s.find('.');
      if (dot == std::string_view::npos || !digits(s.substr(0, dot)) || s.size() - dot != 3 ||
          !digits(s.substr(dot + 1)))
        return "not an amount with two decimals";
      break;
    }
    case Kind::currency:
      if (s.size() != 3 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
        return "not a currency code";
      break;
    case Kind::date:
      if (!shaped(s, "9999-99-99")) return "not YYYY-MM-DD";
      break;
    case Kind::hhmm:
      if (!shaped(s, "99:99")) return "not HH:mm";
      break;
    default: break;
  }
  if (!field.values.empty() && std::find(field.values.begin(), field.values.end(), s) == field.values.end())
    return "value '" + std::string(s) + "' not allowed";
  if (!field.constant.empty() && s != field.constant) return "not '" + std::string(field.constant) + "'";
  return {};
}

std::string type_problem(const Field& field, simdjson::dom::element v) {
  using simdjson::dom::element_type;
  const element_type t = v.type();
  switch (field.kind) {
    case Kind::integer: return t == element_type::INT64 || t == element_type::UINT64 ? "" : "not an integer";
    case Kind::boolean: return t == element_type::BOOL ? "" : "not a boolean";
    case Kind::object: return t == element_type::OBJECT ? "" : "not an object";
    case Kind::array: return t == element_type::ARRAY ? "" : "not an array";
    case Kind::strings: {
      if (t != element_type::ARRAY) return "not an array";
      const simdjson::dom::array items = v.get_array().value();  // a copy: value() refers into the temporary
      for (simdjson::dom::element item : items) {
        if (item.type() != element_type::STRING) return "an item is not a string";
      }
      return "";
    }
    default:
      if (t != element_type::STRING) return "not a string";
      return string_problem(field, v.get_string().value());
  }
}

}  // namespace

void check_object(simdjson::dom::element value, std::span<const Field> fields, const std::string& where,
                  std::vector<std::string>& problems) {
  simdjson::dom::object object;
  if (value.get_object().get(object)) {
    problems.push_back(where + ": not an object");
    return;
  }
  std::set<std::string_view> expected;
  for (const Field& field : fields) {
    expected.insert(field.name);
    simdjson::dom::element member;
    if (object[field.name].get(member)) {
      problems.push_back(where + "." + std::string(field.name) + ": missing");
      continue;
    }
    if (member.is_null()) {
      if (!field.nullable) problems.push_back(where + "." + std::string(field.name) + ": null");
      continue;
    }
    if (const std::string problem = type_problem(field, member); !problem.empty())
      problems.push_back(where + "." + std::string(field.name) + ": " + problem);
  }
  for (const auto member : object) {
    if (!expected.count(member.key)) problems.push_back(where + "." + std::string(member.key) + ": not in the spec");
  }
}

}  // namespace storeapi::testing
