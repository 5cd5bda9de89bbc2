#include "api/routing/context.hpp"

#include <cstdio>

#include "api/routing/query_refusal.hpp"

namespace storeapi::api {

runtime::task<db::Outcome> run_unit(Context& ctx, db::Unit& unit, Pod& pod) {
  ReadRouter& router = ctx.services.read_router;
  const bool reads = ctx.req.method == http::Method::get || ctx.req.method == http::Method::head;
  const db::Outcome outcome =
      reads ? co_await router.read(unit, ctx.caller, pod) : co_await router.write(unit, ctx.caller, pod);
  ctx.res.tally.db += unit.database_time();
  co_return outcome;
}

runtime::task<db::Outcome> run_unit(Context& ctx, db::Unit& unit) {
  Pod* pod = co_await ctx.services.pods.find(ctx.caller.pod);
  if (!pod) co_return db::Outcome::unavailable;
  co_return co_await run_unit(ctx, unit, *pod);
}

runtime::task<UnitRan> run_write_unit(Context& ctx, db::Unit& unit, Pod& pod, std::size_t statement) {
  const db::Outcome outcome = co_await run_unit(ctx, unit, pod);
  co_return database_answered(ctx, outcome, unit.result(statement)) ? UnitRan::answered : UnitRan::failed;
}

bool refuse_query_params(Context& ctx) {
  http::Query query;  // the refusal's views are used before this returns
  const Checked checked = check_no_query_params(query, ctx.req.query);
  if (checked.ok()) return false;
  fail(ctx, checked);
  return true;
}

bool database_answered(Context& ctx, db::Outcome outcome, const db::Result& result) {
  if (outcome != db::Outcome::done) {
    fail_unavailable(ctx);
    return false;
  }
  if (result.ok()) return true;
  // Classes 08 (connection), 53 (insufficient resources) and 57 (operator intervention:
  // statement_timeout, shutdown) are the database's state, not a fault of this request.
  const std::string_view state = result.sqlstate();
  const std::string_view cls = state.substr(0, 2);
  if (cls == "08" || cls == "53" || cls == "57") {
    fail_unavailable(ctx);
    return false;
  }
  const std::string_view message = result.error_message();
  std::fprintf(stderr, "storeapi: %.*s: statement failed: %.*s %.*s\n", static_cast<int>(ctx.req.request_id.size()),
               ctx.req.request_id.data(), static_cast<int>(state.size()), state.data(), static_cast<int>(message.size()),
               message.data());
  fail(ctx, ErrorCode::internal_error);
  return false;
}

}  // namespace storeapi::api
