#include "api/lists/list_params.hpp"

#include "api/writes/validators.hpp"

namespace storeapi::api {
namespace {

// What a query parameter's name stands for in a given list.
enum class Slot : std::uint8_t {
  limit,
  cursor,
  order,
  created_after,
  created_before,
  updated_after,
  updated_before,
  filter,  // ListSpec::filters[index]
};

struct Classified {
  Slot slot;
  std::size_t index = 0;  // for Slot::filter
};

std::optional<Classified> classify(std::string_view name, const ListSpec& spec) {
  if (name == "limit") return Classified{Slot::limit};
  if (name == "cursor") return Classified{Slot::cursor};
  if (name == "order") return Classified{Slot::order};
  if (name == "created_after") return Classified{Slot::created_after};
  if (name == "created_before") return Classified{Slot::created_before};
  if (spec.updated_bounds && name == "updated_after") return Classified{Slot::updated_after};
  if (spec.updated_bounds && name == "updated_before") return Classified{Slot::updated_before};
  for (std::size_t i = 0; i < spec.filters.size(); ++i) {
    if (spec.filters[i].name == name) return Classified{Slot::filter, i};
  }
  return std::nullopt;
}

// 1 to kMaxLimit, written as plain decimal digits without a leading zero.
std::optional<std::int64_t> parse_limit(std::string_view text) {
  if (text.empty() || text.size() > 3 || text[0] == '0') return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > kMaxLimit) return std::nullopt;
  return value;
}

// Why `value` is not acceptable for `filter`, or empty when it is.
std::string_view filter_problem(const FilterSpec& filter, std::string_view value) {
  switch (filter.rule) {
    case FilterRule::one_of:
      return is_one_of(value, filter.allowed) ? std::string_view() : "Not one of the allowed values.";
    case FilterRule::sku:
      return length_between(value, 1, 100) ? std::string_view() : "Expected 1 to 100 characters.";
    case FilterRule::email:
      return is_email(value) ? std::string_view() : "Expected an e-mail address.";
  }
  return "Not acceptable.";
}

// Stores the value of one recognised parameter, or says what is wrong with it.
Checked take(const Classified& what, const http::QueryParam& param, const ListSpec& spec, ListParams& out,
             std::optional<std::string_view>& cursor) {
  const auto invalid = [&param](std::string_view message) {
    return Checked::refused(ErrorCode::parameter_invalid, param.name, message);
  };
  const auto time = [&](std::optional<timefmt::Micros>& field) -> Checked {
    field = timefmt::parse_rfc3339(param.value);
    if (!field) return invalid("Expected an RFC 3339 date-time such as 2026-11-21T20:39:02Z.");
    return Checked::passed();
  };
  switch (what.slot) {
    case Slot::limit: {
      const auto limit = parse_limit(param.value);
      if (!limit) return invalid("Expected an integer from 1 to 100.");
      out.limit = *limit;
      return Checked::passed();
    }
    case Slot::cursor:
      // Its length here; its signature once every other parameter is known (it is bound
      // to them).
      if (param.value.size() > kCursorMaxLength) {
        return Checked::refused(ErrorCode::invalid_cursor, param.name, "A cursor has at most 500 characters.");
      }
      cursor = param.value;
      return Checked::passed();
    case Slot::order:
      if (param.value != "asc" && param.value != "desc") return invalid("Expected asc or desc.");
      out.ascending = param.value == "asc";
      return Checked::passed();
    case Slot::created_after: return time(out.created_after);
    case Slot::created_before: return time(out.created_before);
    case Slot::updated_after: return time(out.updated_after);
    case Slot::updated_before: return time(out.updated_before);
    case Slot::filter: {
      const std::string_view problem = filter_problem(spec.filters[what.index], param.value);
      if (!problem.empty()) return invalid(problem);
      out.filters[what.index] = param.value;
      return Checked::passed();
    }
  }
  return invalid("Not acceptable.");
}

crypto::Sha256 binding(const ListSpec& spec, const Uuid& store, const ListParams& params) {
  CursorBinding bound(spec.route, store, params.ascending);
  bound.add(params.created_after);
  bound.add(params.created_before);
  bound.add(params.updated_after);
  bound.add(params.updated_before);
  for (std::size_t i = 0; i < spec.filters.size(); ++i) bound.add(params.filters[i]);
  return bound.digest();
}

constexpr std::string_view kCursorMismatch =
    "Not a cursor of this list: pass next_cursor unchanged, with the same endpoint and parameters (limit may change).";

}  // namespace

Checked parse_list_params(http::Query& query, std::string_view raw, const ListSpec& spec, const Uuid& store,
                          std::string_view secret, ListParams& out) {
  out = ListParams{};
  if (const http::QueryResult parsed = query.parse(raw); !parsed.ok())
    return Checked::refused(ErrorCode::parameter_invalid, parsed.param, parsed.message);
  for (const http::QueryParam& param : query.params()) {
    if (!classify(param.name, spec)) return Checked::refused(ErrorCode::parameter_unknown, param.name);
  }
  std::optional<std::string_view> cursor;
  for (const http::QueryParam& param : query.params()) {
    if (const Checked taken = take(*classify(param.name, spec), param, spec, out, cursor); !taken.ok()) return taken;
  }
  out.binding = binding(spec, store, out);
  if (cursor) {
    out.cursor = decode_cursor(secret, out.binding, *cursor);
    if (!out.cursor) return Checked::refused(ErrorCode::invalid_cursor, "cursor", kCursorMismatch);
  }
  return Checked::passed();
}

}  // namespace storeapi::api
