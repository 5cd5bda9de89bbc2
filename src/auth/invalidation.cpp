#include "auth/invalidation.hpp"

namespace storeapi::auth {

const db::Statement kConfirmInvalidation{
    "auth_confirm_invalidation", "select pg_notify(api.config('invalidate_channel'), $1)", 1};

runtime::task<void> confirm_invalidation(db::Pool& pool, std::string payload) {
  if (payload == "*") co_return;
  const std::string confirmation = std::string(kConfirmationPrefix).append(payload);
  db::Unit unit;
  unit.add(kConfirmInvalidation, {std::string_view(confirmation)});
  co_await pool.run(unit);
}

}  // namespace storeapi::auth
