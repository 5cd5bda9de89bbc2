#include "api/statements.hpp"

#include <vector>

#include "api/dispatcher_wake.hpp"
#include "api/idempotency.hpp"
#include "api/write_statements.hpp"
#include "auth/authenticator.hpp"
#include "auth/invalidation.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all{
      auth::kKeyByHash,
      auth::kConfirmInvalidation,
      kTakeIdempotencyKey,
      kStoreRejection,
      kReleaseIdempotencyKey,
      kPurgeIdempotencyKeys,
      kFulfillOrder,
      kAcceptBooking,
      kCancelBooking,
      kUpdateVariant,
      kChangeStock,
      kWakeDispatchers,
  };
  return all;
}

}  // namespace storeapi::api
