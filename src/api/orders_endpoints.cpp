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

constexpr ListSpec kList{http::RouteId::orders_list, true, kFilters};

}  // namespace

const db::Statement kOrderById{"orders_get", "select api.order_json(o) from orders o where o.store_id = $1 and o.id = $2",
                               2};

const PageStatements& order_pages() {
  static const PageStatements pages(
      "orders",
      {"orders", "api.order_json(r, li.line_items)", "cross join lateral api.line_items_json(r.store_id, r.id) li"},
      kList);
  return pages;
}

runtime::task<void> list_orders(Context& ctx) { return serve_list(ctx, kList, order_pages()); }

runtime::task<void> get_order(Context& ctx) { return serve_record(ctx, kOrderById); }

}  // namespace storeapi::api
