#include "api/lists/record.hpp"

#include "api/lists/list_sql.hpp"

namespace storeapi::api {

runtime::task<void> serve_record(Context& ctx, const db::Statement& statement) {
  http::Query query;  // a refusal may name a parameter in it
  if (const Checked checked = check_no_query_params(query, ctx.req.query); !checked.ok()) {
    fail(ctx, checked);
    co_return;
  }
  db::Unit unit;
  unit.add(statement, {ctx.caller.store(), ctx.match.id});
  const db::Outcome outcome = co_await run_unit(ctx, unit);
  const db::Result& result = unit.result(0);
  if (const Checked answered = check_database_answer(ctx, outcome, result); !answered.ok()) {
    fail(ctx, answered);
    co_return;
  }
  if (result.rows() == 0) {
    fail(ctx, ErrorCode::resource_not_found, "id");
    co_return;
  }
  ctx.res.body.assign(result.row<Document>(0).doc());
}

}  // namespace storeapi::api
