#include "api/routing/context.hpp"

#include <cstdio>

namespace storeapi::api {
namespace {

// What run_unit does, on `pod`, the store's, already found.
runtime::task<db::Outcome> run_on_pod(Context& ctx, db::Unit& unit, Pod& pod) {
  ReadRouter& router = ctx.services.read_router;
  const bool reads = ctx.req.method == http::Method::get || ctx.req.method == http::Method::head;
  const db::Outcome outcome =
      reads ? co_await router.read(unit, ctx.caller, pod) : co_await router.write(unit, ctx.caller, pod);
  ctx.res.tally.db += unit.database_time();
  co_return outcome;
}

}  // namespace

runtime::task<db::Outcome> run_unit(Context& ctx, db::Unit& unit) {
  const PodLookup pod = co_await ctx.services.pods.find(ctx.caller.pod);
  if (!pod.ok()) co_return db::Outcome::unavailable;
  co_return co_await run_on_pod(ctx, unit, pod.pod());
}

runtime::task<UnitRan> run_write_unit(Context& ctx, db::Unit& unit, Pod& pod, std::size_t statement) {
  const db::Outcome outcome = co_await run_on_pod(ctx, unit, pod);
  const Checked ran = check_database_answer(ctx, outcome, unit.result(statement));
  if (ran.ok()) co_return UnitRan::answered;
  fail(ctx, ran);
  co_return UnitRan::failed;
}

Checked check_database_answer(const Context& ctx, db::Outcome outcome, const db::Result& result) {
  if (outcome != db::Outcome::done) return Checked::refused(ErrorCode::service_unavailable, std::nullopt);
  if (result.ok()) return Checked::passed();
  // Classes 08 (connection), 53 (insufficient resources) and 57 (operator intervention:
  // statement_timeout, shutdown) are the database's state, not a fault of this request.
  const std::string_view state = result.sqlstate();
  const std::string_view cls = state.substr(0, 2);
  if (cls == "08" || cls == "53" || cls == "57") return Checked::refused(ErrorCode::service_unavailable, std::nullopt);
  const std::string_view message = result.error_message();
  std::fprintf(stderr, "storeapi: %.*s: statement failed: %.*s %.*s\n", static_cast<int>(ctx.req.request_id.size()),
               ctx.req.request_id.data(), static_cast<int>(state.size()), state.data(), static_cast<int>(message.size()),
               message.data());
  return Checked::refused(ErrorCode::internal_error, std::nullopt);
}

}  // namespace storeapi::api
