#include "api/endpoints.hpp"

namespace storeapi::api {

// GET /v1/store: answered from the key cache; the authenticator rendered it once per key.
runtime::task<void> get_store(Context& ctx) {
  ctx.res.body.assign(ctx.caller.store_body);
  co_return;
}

}  // namespace storeapi::api
