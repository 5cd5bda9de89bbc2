#include "api/routing/endpoints.hpp"

namespace storeapi::api {

// GET /v1/store: answered from the key cache; the authenticator rendered it once per key.
// It takes no query parameters.
runtime::task<void> get_store(Context& ctx) {
  http::Query query;  // a refusal may name a parameter in it
  if (const Checked checked = check_no_query_params(query, ctx.req.query); !checked.ok()) {
    fail(ctx, checked);
    co_return;
  }
  ctx.res.body.assign(*ctx.caller.store_body);
  co_return;
}

}  // namespace storeapi::api
