// GET /v1/orders and GET /v1/orders/{id}.
#include "api/endpoints.hpp"
#include "api/page.hpp"
#include "api/record.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {
namespace {

constexpr FilterSpec kFilters[] = {
    {"status", FilterRule::one_of, kOrderStatuses, "($?::text is null or r.status = $?::text)"},
    {"fulfillment_status", FilterRule::one_of, kFulfillmentStatuses,
     "($?::text is null or r.fulfillment_status = $?::text)"},
    {"channel", FilterRule::one_of, kOrderChannels, "($?::text is null or r.channel = $?::text)"},
};

constexpr ListSpec kList{RouteId::orders_list, true, kFilters};

}  // namespace

const ReadStatements& order_reads() {
  static const ReadStatements reads("orders", kList);
  return reads;
}

runtime::task<void> list_orders(Context& ctx) { return serve_list(ctx, kList, order_reads()); }

runtime::task<void> get_order(Context& ctx) { return serve_record(ctx, order_reads().by_id()); }

}  // namespace storeapi::api
