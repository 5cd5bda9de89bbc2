// GET /v1/customers and GET /v1/customers/{id}. The e-mail filter is exact but
// case-insensitive, through the customers_email index on (store_id, lower(email)).
#include "api/endpoints.hpp"
#include "api/page.hpp"
#include "api/record.hpp"

namespace storeapi::api {
namespace {

constexpr FilterSpec kFilters[] = {
    {"email", FilterRule::email, {}, "lower(r.email) = lower($?::text)", true},
};

constexpr ListSpec kList{RouteId::customers_list, true, kFilters};

}  // namespace

const ReadStatements& customer_reads() {
  static const ReadStatements reads("customers", kList);
  return reads;
}

runtime::task<void> list_customers(Context& ctx) { return serve_list(ctx, kList, customer_reads()); }

runtime::task<void> get_customer(Context& ctx) { return serve_record(ctx, customer_reads().by_id()); }

}  // namespace storeapi::api
