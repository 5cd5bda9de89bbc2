// GET /v1/customers and GET /v1/customers/{id}. The e-mail filter is exact but
// case-insensitive, through the customers_email index on (store_id, lower(email)).
#include "api/routing/endpoints.hpp"

namespace storeapi::api {

const ResourceReads& customer_reads() {
  static constexpr FilterSpec kFilters[] = {
      {"email", FilterRule::email, {}, "lower(r.email) = lower($?::text)", true},
  };
  static const ResourceReads reads("customers", ListSpec{RouteId::customers_list, true, kFilters});
  return reads;
}

}  // namespace storeapi::api
