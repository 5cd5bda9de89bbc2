#include "api/lists/page.hpp"

#include <algorithm>
#include <array>

#include "api/lists/list_sql.hpp"
#include "json/writer.hpp"

namespace storeapi::api {
namespace {

// One exclusive end of the (created_at, id) range a page is read from.
struct Bound {
  std::optional<timefmt::Micros> created_at;  // nullopt: the infinity on this side
  Uuid id;
};

bool before(const Bound& a, const Bound& b) {  // both finite
  return *a.created_at != *b.created_at ? *a.created_at < *b.created_at : a.id.bytes < b.id.bytes;
}

Uuid filled_uuid(std::uint8_t byte) {
  Uuid u;
  u.bytes.fill(byte);
  return u;
}

using TimeText = std::array<char, timefmt::kPgTimestampMax>;

// A time as a timestamptz text parameter, written into `buffer`; `infinity` when absent.
std::string_view pg_time(const std::optional<timefmt::Micros>& t, std::string_view infinity, TimeText& buffer) {
  if (!t) return infinity;
  return {buffer.data(), timefmt::format_pg_utc(*t, buffer.data())};
}

// Every bound strict: created_after T excludes records created at T, whatever their id,
// so the lower bound is (T, the greatest uuid); created_before T is (T, the least uuid).
// The cursor narrows the side the page moves towards.
std::pair<Bound, Bound> page_range(const ListParams& params) {
  Bound lower{params.created_after, filled_uuid(0xff)};
  Bound upper{params.created_before, filled_uuid(0x00)};
  if (params.cursor) {
    const Bound at{params.cursor->created_at, params.cursor->id};
    if (params.ascending) {
      if (!lower.created_at || before(lower, at)) lower = at;
    } else {
      if (!upper.created_at || before(at, upper)) upper = at;
    }
  }
  return {lower, upper};
}

// The path the parameters call for: a selective filter's index, else the updated_at
// window's, else the created_at walk.
PagePath page_path(const ListSpec& spec, const ListParams& params) {
  for (std::size_t i = 0; i < spec.filters.size(); ++i) {
    if (spec.filters[i].selective && params.filters[i]) return PagePath::selective;
  }
  if (params.updated_after || params.updated_before) return PagePath::sync;
  return PagePath::walk;
}

// Adds the page's statement with its parameters in list_sql.hpp's numbering.
void add_page_statement(db::Unit& unit, const ListSpec& spec, const ReadStatements& statements,
                        const ListParams& params, std::string_view store) {
  const auto [lower, upper] = page_range(params);
  TimeText lower_time, upper_time, updated_after, updated_before;
  std::array<char, 36> lower_id, upper_id;
  lower.id.write(lower_id.data());
  upper.id.write(upper_id.data());
  const PagePath path = page_path(spec, params);

  std::array<db::Param, 6 + kMaxFilters + 3> values;
  std::size_t n = 0;
  for (const db::Param p : {db::Param(store), db::Param(pg_time(lower.created_at, "-infinity", lower_time)),
                            db::Param(std::string_view(lower_id.data(), lower_id.size())),
                            db::Param(pg_time(upper.created_at, "infinity", upper_time)),
                            db::Param(std::string_view(upper_id.data(), upper_id.size())), db::Param(params.limit + 1)}) {
    values[n++] = p;
  }
  std::optional<std::string_view> selective;
  for (std::size_t i = 0; i < spec.filters.size(); ++i) {
    if (spec.filters[i].selective) {
      selective = params.filters[i];
    } else {
      values[n++] = params.filters[i];
    }
  }
  if (path != PagePath::walk && spec.updated_bounds) {
    values[n++] = pg_time(params.updated_after, "-infinity", updated_after);
    values[n++] = pg_time(params.updated_before, "infinity", updated_before);
  }
  if (path == PagePath::selective) values[n++] = selective;
  unit.add(statements.statement(path, params.ascending), std::span<const db::Param>(values.data(), n));
}

// The envelope around the rows (json, created_at, id): at most `limit` of them, and a
// cursor at the last one shown when the statement found one more.
bool write_page(std::string& out, const db::Result& rows, const ListParams& params, std::string_view secret) {
  const auto shown = static_cast<int>(std::min<std::int64_t>(rows.rows(), params.limit));
  const bool has_more = rows.rows() > shown;
  json::Writer w(out);
  w.begin_object().key("object").string("list").key("data").begin_array();
  for (int i = 0; i < shown; ++i) w.raw(rows.row<PageEntry>(i).doc());
  w.end_array().key("has_more").boolean(has_more).key("next_cursor");
  if (!has_more) {
    w.null().end_object();
    return true;
  }
  const auto last = rows.row<PageEntry>(shown - 1);
  const auto created_at = timefmt::parse_pg_timestamptz(last.created_at());
  const auto id = Uuid::parse(last.id());
  if (!created_at || !id) return false;
  char cursor[kCursorLength];
  encode_cursor(secret, params.binding, {*created_at, *id}, cursor);
  w.string({cursor, kCursorLength}).end_object();
  return true;
}

}  // namespace

runtime::task<void> serve_list(Context& ctx, const ListSpec& spec, const ReadStatements& statements) {
  const std::string& secret = ctx.services.cursor_secret;
  if (secret.empty()) {  // the database has not answered since the start
    fail_unavailable(ctx);
    co_return;
  }
  // The request's own parser: the filters are views into it (or into the request), so they
  // last across the co_await below whatever other requests of this core parse meanwhile.
  http::Query query;
  ListParams params;
  if (const Checked checked = parse_list_params(query, ctx.req.query, spec, ctx.caller.store_id, secret, params);
      !checked.ok()) {
    fail(ctx, checked);
    co_return;
  }
  db::Unit unit;
  add_page_statement(unit, spec, statements, params, ctx.caller.store());
  const db::Outcome outcome = co_await run_unit(ctx, unit);
  if (const Checked answered = check_database_answer(ctx, outcome, unit.result(0)); !answered.ok()) {
    fail(ctx, answered);
    co_return;
  }
  if (!write_page(ctx.res.body, unit.result(0), params, secret)) {
    fail(ctx, ErrorCode::internal_error);
  }
}

}  // namespace storeapi::api
