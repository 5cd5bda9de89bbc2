#include "api/statements.hpp"

#include <vector>

#include "api/dispatcher_wake.hpp"
#include "api/idempotency.hpp"
#include "api/write_statements.hpp"
#include "api/endpoints.hpp"
#include "auth/authenticator.hpp"
#include "auth/invalidation.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all = [] {
    std::vector<db::Statement> list{
        auth::kKeyByHash,
        auth::kConfirmInvalidation,
        kStoreRejection,
        kPurgeIdempotencyKeys,
        kFulfillOrder,
        kAcceptBooking,
        kCancelBooking,
        kUpdateVariant,
        kChangeStock,
        kWakeDispatchers,
    };
    for (const ReadStatements* reads : {&order_reads(), &booking_reads(), &product_reads(), &customer_reads()}) {
      list.insert(list.end(), reads->all().begin(), reads->all().end());
    }
    return list;
  }();
  return all;
}

}  // namespace storeapi::api
