#include "api/statements.hpp"

#include <vector>

#include "api/lists/cursor_secret.hpp"
#include "api/writes/dispatcher_wake.hpp"
#include "api/writes/idempotency.hpp"
#include "api/writes/write_statements.hpp"
#include "api/routing/endpoints.hpp"
#include "api/routing/pods.hpp"
#include "auth/authenticator.hpp"
#include "auth/invalidation.hpp"
#include "auth/key_set_coordinator.hpp"
#include "db/pod_addresses.hpp"
#include "db/standbys.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all = [] {
    std::vector<db::Statement> list{
        auth::kKeyByHash,
        auth::kConfirmInvalidation,
        auth::kKeyHashPage,
        kStoreRejection,
        kPurgeIdempotencyKeys,
        kFulfillOrder,
        kAcceptBooking,
        kCancelBooking,
        kUpdateVariant,
        kChangeStock,
        kWakeDispatchers,
        kNotifyDispatchers,
        kCursorSecret,
        db::kReplayPosition,
        db::kWalInsertPosition,
        db::kPodAddresses,
        kStorePlacement,
    };
    for (const ResourceReads* reads : {&order_reads(), &booking_reads(), &product_reads(), &customer_reads()}) {
      const auto read_statements = reads->statements().all();
      list.insert(list.end(), read_statements.begin(), read_statements.end());
    }
    return list;
  }();
  return all;
}

}  // namespace storeapi::api
