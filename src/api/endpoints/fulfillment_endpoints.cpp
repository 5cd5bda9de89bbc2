// POST /v1/orders/{id}/fulfillment: moves the order along docs/DESIGN.md's fulfillment
// transitions (checked in api.fulfill_order), optionally with tracking details.
#include "api/routing/endpoints.hpp"
#include "api/writes/validators.hpp"
#include "api/value_sets.hpp"
#include "api/writes/write.hpp"
#include "api/writes/write_statements.hpp"

namespace storeapi::api {
namespace {

constexpr json::Field kFields[] = {
    {"fulfillment_status", json::FieldType::string, true},
    {"tracking_number", json::FieldType::string},
    {"tracking_carrier", json::FieldType::string},
};

WriteCall read_fulfillment(const Context& ctx, FieldValues v) {
  if (!is_one_of(v[0].text, kFulfillmentStatuses)) {
    return Checked::refused(ErrorCode::parameter_invalid, kFields[0].name, OneOfMessage<kFulfillmentStatuses>::text);
  }
  for (std::size_t i : {1, 2}) {
    if (v[i].present && !length_between(v[i].text, 1, 100)) {
      return Checked::refused(ErrorCode::parameter_invalid, kFields[i].name, "Expected 1 to 100 characters.");
    }
  }
  return {kFulfillOrder, ctx.caller.store(), ctx.match.id, v[0].text, optional_text(v[1]), optional_text(v[2])};
}

}  // namespace

runtime::task<void> post_order_fulfillment(Context& ctx) { return run_write(ctx, {kFields, read_fulfillment}); }

}  // namespace storeapi::api
