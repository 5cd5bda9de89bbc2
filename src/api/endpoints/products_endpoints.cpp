// GET /v1/products and GET /v1/products/{id}. Deleted products are listed only with
// status=deleted, but shown by id; deleted variants are never shown (api.product_variants).
#include "api/routing/endpoints.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {

const ResourceReads& product_reads() {
  static constexpr FilterSpec kFilters[] = {
      {"status", FilterRule::one_of, kProductStatuses,
       "(r.status = $?::text or ($?::text is null and r.status <> 'deleted'))"},
      {"type", FilterRule::one_of, kProductTypes, "($?::text is null or r.type = $?::text)"},
      // Through the variants_sku index (live variants only): the few products having it.
      {"sku", FilterRule::sku, {},
       "r.id in (select v.product_id from variants v where v.store_id = $1 and v.sku = $?::text and v.deleted_at is null)",
       true},
  };
  static const ResourceReads reads("products", ListSpec{RouteId::products_list, true, kFilters});
  return reads;
}

}  // namespace storeapi::api
