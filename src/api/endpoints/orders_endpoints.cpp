// GET /v1/orders and GET /v1/orders/{id}.
#include "api/routing/endpoints.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {

const ResourceReads& order_reads() {
  static constexpr FilterSpec kFilters[] = {
      {"status", FilterRule::one_of, kOrderStatuses, "($?::text is null or r.status = $?::text)"},
      {"fulfillment_status", FilterRule::one_of, kFulfillmentStatuses,
       "($?::text is null or r.fulfillment_status = $?::text)"},
      {"channel", FilterRule::one_of, kOrderChannels, "($?::text is null or r.channel = $?::text)"},
  };
  static const ResourceReads reads("orders", ListSpec{RouteId::orders_list, true, kFilters});
  return reads;
}

}  // namespace storeapi::api
