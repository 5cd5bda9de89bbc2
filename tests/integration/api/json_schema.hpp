#pragma once
// A small schema checker for API responses: an object must hold exactly the listed
// fields, each of its JSON type and format, null only where allowed. Every problem is
// reported, with a path, so one failing test shows all that is wrong with a record.
#include <simdjson.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::testing {

enum class Kind {
  string,     // any string
  uuid,       // canonical lower-case uuid
  timestamp,  // RFC 3339 UTC with milliseconds: 2026-11-21T20:39:02.123Z
  amount,     // decimal string with exactly two fraction digits: "149.00"
  currency,   // three upper-case letters
  date,       // YYYY-MM-DD
  hhmm,       // HH:mm
  integer,
  boolean,
  object,     // checked by the caller
  array,      // checked by the caller
  strings,    // array of strings
};

struct Field {
  std::string_view name;
  Kind kind;
  bool nullable = false;
  std::span<const std::string_view> values = {};  // for strings: the allowed values, when given
  std::string_view constant = {};                 // for strings: the one allowed value, when given
};

// Appends to `problems` what is wrong with `value` as the object `fields` describe;
// `where` prefixes each message (e.g. "orders[3].line_items[0]").
void check_object(simdjson::dom::element value, std::span<const Field> fields, const std::string& where,
                  std::vector<std::string>& problems);

}  // namespace storeapi::testing
