// GET /v1/products and GET /v1/products/{id}. Deleted products are listed only with
// status=deleted, but shown by id; deleted variants are never shown (api.product_variants).
#include "api/endpoints.hpp"
#include "api/page.hpp"
#include "api/record.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {
namespace {

constexpr FilterSpec kFilters[] = {
    {"status", FilterRule::one_of, kProductStatuses,
     "(r.status = $?::text or ($?::text is null and r.status <> 'deleted'))"},
    {"type", FilterRule::one_of, kProductTypes, "($?::text is null or r.type = $?::text)"},
    // Through the variants_sku index (live variants only): the few products having it.
    {"sku", FilterRule::sku, {},
     "r.id in (select v.product_id from variants v where v.store_id = $1 and v.sku = $?::text and v.deleted_at is null)",
     true},
};

constexpr ListSpec kList{RouteId::products_list, true, kFilters};

}  // namespace

const ReadStatements& product_reads() {
  // The currency is a scalar subquery (one InitPlan), not a join: a join could put the
  // store first and cost the walk its index order.
  static const ReadStatements reads(
      "products",
      {"products",
       "api.product_json(r, (select s.currency from stores s where s.id = $1), v.variants, v.min_price, v.max_price, "
       "t.translations)",
       "cross join lateral api.product_variants(r.store_id, r.id) v "
       "cross join lateral api.translations_json(r.store_id, r.id) t"},
      kList);
  return reads;
}

runtime::task<void> list_products(Context& ctx) { return serve_list(ctx, kList, product_reads()); }

runtime::task<void> get_product(Context& ctx) { return serve_record(ctx, product_reads().by_id()); }

}  // namespace storeapi::api
