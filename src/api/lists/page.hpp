#pragma once
// Serving a list endpoint: its parameters (list_params.hpp), one database round trip with
// the statement of the right access path (list_sql.hpp), and the list envelope
// {"object":"list","data":[…],"has_more":…,"next_cursor":…} around the records rendered by
// PostgreSQL, which are spliced in as they are.
#include "api/routing/context.hpp"
#include "api/lists/list_params.hpp"
#include "api/lists/list_sql.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

runtime::task<void> serve_list(Context& ctx, const ListSpec& spec, const ReadStatements& statements);

}  // namespace storeapi::api
