#pragma once
// The query parameters of every list endpoint, parsed by one function from a per-endpoint
// table (docs/DECISIONS.md, "List parameters"):
//   limit            1 to 100, default 25: digits only, no sign, no leading zero
//   cursor           a next_cursor of the same list (cursor.hpp), at most 500 characters
//   order            desc (default) or asc
//   created_after, created_before, and where the list takes them updated_after,
//   updated_before   RFC 3339 date-times with Z or an offset; strict bounds
//   filters          the endpoint's own: a value from a set, a SKU, or an e-mail address
// Errors, the first one only: the query string itself (parameter_invalid, see
// http::Query) → a name the list does not take (parameter_unknown, leftmost) → values
// from left to right (parameter_invalid naming the parameter; a cursor over 500
// characters is invalid_cursor) → the cursor's signature and binding (invalid_cursor).
// Nothing is allocated once the core's http::Query is warm.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "api/lists/cursor.hpp"
#include "api/errors.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"
#include "common/uuid.hpp"
#include "http/query.hpp"
#include "api/routing/router.hpp"

namespace storeapi::api {

enum class FilterRule : std::uint8_t {
  one_of,  // one of FilterSpec::allowed, exactly
  sku,     // 1 to 100 characters
  email,   // an e-mail address (validators.hpp, is_email)
};

struct FilterSpec {
  std::string_view name;
  FilterRule rule;
  std::span<const std::string_view> allowed;  // for one_of
  // The SQL condition on the page's row `r`, with `$?` for the value's parameter (text,
  // SQL null when the filter is absent); see list_sql.hpp.
  std::string_view condition;
  // An index finds the few matching rows directly: when given, the page is read through
  // this condition (its own statement) instead of walking the list's order.
  bool selective = false;
};

inline constexpr std::size_t kMaxFilters = 3;

struct ListSpec {
  RouteId route;
  bool updated_bounds;                  // takes updated_after / updated_before
  std::span<const FilterSpec> filters;  // at most kMaxFilters, at most one selective
};

inline constexpr std::int64_t kDefaultLimit = 25;
inline constexpr std::int64_t kMaxLimit = 100;

struct ListParams {
  std::int64_t limit = kDefaultLimit;
  bool ascending = false;
  std::optional<CursorPosition> cursor;  // where the previous page ended; signature checked
  std::optional<timefmt::Micros> created_after, created_before, updated_after, updated_before;
  // By position in ListSpec::filters. Views into the request or into the http::Query that
  // parsed it, which the request owns (api/lists/page.cpp): valid while both live, across
  // suspensions (tests/api/list_params_test.cpp).
  std::array<std::optional<std::string_view>, kMaxFilters> filters{};
  // The digest of everything the cursors of this list are bound to (cursor.hpp).
  crypto::Sha256 binding{};
};

// Parses `raw` (the query string) with the core's `query` for the list `spec`, for a
// caller of `store`; cursors are checked with `secret`. Fills `out`, or says why not.
Checked parse_list_params(http::Query& query, std::string_view raw, const ListSpec& spec, const Uuid& store,
                          std::string_view secret, ListParams& out);

}  // namespace storeapi::api
