#include "auth/invalidation.hpp"

namespace storeapi::auth {

namespace {
constexpr db::Column kConfirmationParams[] = {{"confirmation", db::Type::text}};
constexpr db::Column kNotified[] = {{"pg_notify", db::Type::void_}};
}  // namespace

const db::Statement kConfirmInvalidation{"auth_confirm_invalidation",
                                         "select pg_notify(api.config('invalidate_channel'), $1)",
                                         kConfirmationParams, kNotified};

runtime::task<void> confirm_invalidation(db::Pool& pool, std::string payload) {
  if (payload == "*") co_return;
  const std::string confirmation = std::string(kConfirmationPrefix).append(payload);
  db::Unit unit;
  unit.add(kConfirmInvalidation, {std::string_view(confirmation)});
  co_await pool.run(unit);
}

}  // namespace storeapi::auth
