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

constexpr ListSpec kList{http::RouteId::customers_list, true, kFilters};

}  // namespace

const db::Statement kCustomerById{"customers_get",
                                  "select api.customer_json(c) from customers c where c.store_id = $1 and c.id = $2", 2};

const PageStatements& customer_pages() {
  static const PageStatements pages("customers", {"customers", "api.customer_json(r)", ""}, kList);
  return pages;
}

runtime::task<void> list_customers(Context& ctx) { return serve_list(ctx, kList, customer_pages()); }

runtime::task<void> get_customer(Context& ctx) { return serve_record(ctx, kCustomerById); }

}  // namespace storeapi::api
