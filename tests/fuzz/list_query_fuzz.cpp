// A list request's target: the router on its path, then the query string and the list
// parameters (limit, cursor, order, time bounds, filters of each rule) for list shapes
// like every list endpoint's (with and without updated_* bounds, all three filter rules).
// Beyond not crashing: a warm Query parses the same way twice; accepted values are within
// their documented ranges; a cursor issued for the accepted parameters comes back as the
// same position, and is refused for a different list.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/lists/list_params.hpp"
#include "http/query.hpp"
#include "api/routing/router.hpp"

using namespace storeapi;
using namespace storeapi::api;

namespace {

constexpr std::string_view kStatuses[] = {"pending", "paid", "draft"};
constexpr FilterSpec kFilters[] = {
    {"status", FilterRule::one_of, kStatuses, "", false},
    {"sku", FilterRule::sku, {}, "", true},
    {"email", FilterRule::email, {}, "", false},
};
// Lists with and without updated_* bounds, the filter rules alone and together.
constexpr ListSpec kSpecs[] = {
    {api::RouteId::orders_list, true, kFilters},
    {api::RouteId::bookings_list, false, std::span<const FilterSpec>(kFilters, 1)},
    {api::RouteId::products_list, true, std::span<const FilterSpec>(kFilters + 1, 1)},
    {api::RouteId::customers_list, true, std::span<const FilterSpec>(kFilters + 2, 1)},
};

const Uuid kStore = *Uuid::parse("7c9e6679-7425-40de-944b-e07fc1f90ae7");
const Uuid kOtherStore = *Uuid::parse("1d47a987-6768-4250-ad85-f79b3b5b6f18");
constexpr std::string_view kSecret = "fuzz secret";

void require(bool ok, const char* what, std::string_view raw) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\nquery: %.*s\n", what, static_cast<int>(raw.size()), raw.data());
  std::abort();
}

bool same(const ListParams& a, const ListParams& b) {
  return a.limit == b.limit && a.ascending == b.ascending && a.created_after == b.created_after &&
         a.created_before == b.created_before && a.updated_after == b.updated_after &&
         a.updated_before == b.updated_before && a.filters == b.filters && a.binding == b.binding &&
         a.cursor.has_value() == b.cursor.has_value() &&
         (!a.cursor || (a.cursor->created_at == b.cursor->created_at && a.cursor->id == b.cursor->id));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const ListSpec& spec = kSpecs[input.ConsumeIntegralInRange<std::size_t>(0, std::size(kSpecs) - 1)];
  CursorPosition at;
  at.created_at = input.ConsumeIntegral<timefmt::Micros>();
  for (auto& b : at.id.bytes) b = input.ConsumeIntegral<std::uint8_t>();
  const std::string target = input.ConsumeRemainingBytesAsString();

  // The router on the path: whatever it matches is a route of the table.
  const http::Target parts = http::split_target(target);
  const api::Match match = api::match(http::Method::get, parts.path);
  if (match.kind == api::MatchKind::found) require(api::route(match.route).pattern.size() > 0, "a route", target);

  http::Query query;
  ListParams first, again;
  const Checked checked = parse_list_params(query, parts.query, spec, kStore, kSecret, first);
  const Checked checked_again = parse_list_params(query, parts.query, spec, kStore, kSecret, again);
  require(checked == checked_again, "the same verdict when parsed again", parts.query);
  if (!checked.ok()) return 0;
  require(same(first, again), "the same parameters when parsed again", parts.query);
  require(first.limit >= 1 && first.limit <= kMaxLimit, "limit in 1..100", parts.query);

  // A cursor for these very parameters is accepted and yields its position, unless the
  // query already has one (a second cursor parameter is an error of its own).
  if (query.find("cursor")) return 0;
  std::string cursor(kCursorLength, '\0');
  encode_cursor(kSecret, first.binding, at, cursor.data());
  const std::string with_cursor = std::string(parts.query) + (parts.query.empty() ? "" : "&") + "cursor=" + cursor;
  ListParams next;
  const Checked next_checked = parse_list_params(query, with_cursor, spec, kStore, kSecret, next);
  if (!next_checked.ok()) {
    // The query around it may refuse the extra parameter (the 32-parameter cap, an empty
    // pair before it), never the cursor itself.
    require(next_checked.code() != ErrorCode::invalid_cursor && next_checked.param() != "cursor",
            "the cursor is accepted", with_cursor);
    return 0;
  }
  require(next.cursor && next.cursor->created_at == at.created_at && next.cursor->id == at.id,
          "the cursor's position comes back", with_cursor);
  ListParams elsewhere;
  require(!parse_list_params(query, with_cursor, spec, kOtherStore, kSecret, elsewhere).ok(),
          "another store's list refuses the cursor", with_cursor);
  return 0;
}
