#pragma once
// Endpoints about one record named by the path's `id`.
#include "api/routing/context.hpp"
#include "db/statement.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// Answers with the record `statement` finds and renders; it takes ($1 store id, $2 id) and
// returns one text column and at most one row. No row (unknown id, or another store's):
// 404 resource_not_found, `param` "id".
runtime::task<void> serve_record(Context& ctx, const db::Statement& statement);

}  // namespace storeapi::api
