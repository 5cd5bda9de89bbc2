#pragma once
// For endpoints that take no query parameters (records by id, GET /v1/store, writes): the
// query string's verdict as a value, so that a write reads it with the rest of its request
// (api/writes/write_request.hpp) and a read answers it at once (refuse_query_params,
// api/routing/context.hpp).
#include <string_view>

#include "api/errors.hpp"
#include "http/query.hpp"

namespace storeapi::api {

// Passed when `raw` (the query string) has no parameter; else refused with the query
// string's own parameter_invalid, or parameter_unknown naming its first parameter. `query`
// parses it: a refusal's parameter may point into it.
Checked check_no_query_params(http::Query& query, std::string_view raw);

}  // namespace storeapi::api
