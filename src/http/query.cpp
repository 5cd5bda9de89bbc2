#include "http/query.hpp"

#include <simdjson.h>

#include <algorithm>

#include "common/percent.hpp"

namespace storeapi::http {
namespace {

// Why `text` cannot be a parameter name or value, or empty when it can be.
std::string_view text_problem(std::string_view text) {
  if (!simdjson::validate_utf8(text.data(), text.size())) return "Not valid UTF-8.";
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
  if (text.find('\0') != std::string_view::npos) return "Cannot contain the character U+0000.";
  return {};
}

}  // namespace

Target split_target(std::string_view target) {
  const std::size_t mark = target.find('?');
  if (mark == std::string_view::npos) return {target, {}};
  return {target.substr(0, mark), target.substr(mark + 1)};
}

std::optional<std::string_view> Query::decode(std::string_view text) {
  if (text.find('%') == std::string_view::npos) return text;  // `+` stays a plus
  const std::size_t start = scratch_.size();
  if (!percent::decode(text, scratch_)) return std::nullopt;
  return std::string_view(scratch_).substr(start);
}

QueryResult Query::add(std::string_view raw_name, std::string_view raw_value, bool raw_is_clean) {
  const auto name = decode(raw_name);
  if (!name) return QueryResult::invalid(raw_name, "Malformed percent-encoding in the parameter name.");
  const auto value = decode(raw_value);
  if (!value) return QueryResult::invalid(*name, "Malformed percent-encoding.");
  // Decoding shortens text that had escapes; text that had none was checked with the query.
  const auto problem = [raw_is_clean](std::string_view raw, std::string_view text) {
    return raw_is_clean && text.size() == raw.size() ? std::string_view() : text_problem(text);
  };
  if (const auto name_problem = problem(raw_name, *name); !name_problem.empty())
    return QueryResult::invalid(*name, name_problem);
  if (const auto value_problem = problem(raw_value, *value); !value_problem.empty()) {
    return QueryResult::invalid(*name, value_problem);
  }
  if (find(*name)) return QueryResult::invalid(*name, "This parameter is given more than once.");
  if (count_ == max_params) return QueryResult::invalid(std::nullopt, "Too many query parameters.");
  params_[count_++] = {*name, *value};
  return {};
}

QueryResult Query::parse(std::string_view raw) {
  count_ = 0;
  scratch_.clear();
  // Decoding never lengthens text, so the views handed out never move.
  scratch_.reserve(raw.size());
  // One check of the whole query covers every name and value without escapes.
  const bool raw_is_clean = text_problem(raw).empty();
  while (!raw.empty()) {
    const std::size_t amp = std::min(raw.find('&'), raw.size());
    const std::string_view piece = raw.substr(0, amp);
    raw.remove_prefix(std::min(amp + 1, raw.size()));
    if (piece.empty()) continue;  // `a=1&&b=2`, a trailing `&`
    const std::size_t eq = piece.find('=');
    const QueryResult added = eq == std::string_view::npos
                                  ? add(piece, {}, raw_is_clean)
                                  : add(piece.substr(0, eq), piece.substr(eq + 1), raw_is_clean);
    if (!added.ok()) return added;
  }
  return {};
}

std::optional<std::string_view> Query::find(std::string_view name) const {
  for (const QueryParam& param : params()) {
    if (param.name == name) return param.value;
  }
  return std::nullopt;
}

}  // namespace storeapi::http
