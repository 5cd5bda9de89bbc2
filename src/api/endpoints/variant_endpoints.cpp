// PATCH /v1/products/{id}/variants/{variant_id} (price and discount) and
// POST /v1/products/{id}/variants/{variant_id}/stock. Formats are checked here; the rules
// that depend on the stored variant (a discount needs a value and must leave a price
// above zero; stock tracking and the floor at zero) in api.update_variant and
// api.change_stock.
#include "api/routing/endpoints.hpp"
#include "api/writes/validators.hpp"
#include "api/value_sets.hpp"
#include "api/writes/write.hpp"
#include "api/writes/write_statements.hpp"

namespace storeapi::api {
namespace {

constexpr std::string_view kAmountMessage = "Expected a decimal amount string such as \"149.00\".";

constexpr json::Field kVariantFields[] = {
    {"price", json::FieldType::string},
    {"discount_type", json::FieldType::string_or_null},
    {"discount_value", json::FieldType::string},
};

WriteCall read_variant(const Context& ctx, FieldValues v) {
  const json::FieldValue& price = v[0];
  const json::FieldValue& type = v[1];
  const json::FieldValue& value = v[2];
  if (price.present) {
    if (!is_decimal_amount(price.text)) return Checked::refused(ErrorCode::parameter_invalid, "price", kAmountMessage);
    // A price of zero leaves nothing above zero, discount or not.
    if (price.text.find_first_not_of("0.") == std::string_view::npos)
      return Checked::refused(ErrorCode::parameter_invalid, "price", "The price must be above zero.");
  }
  if (type.present && !type.is_null && !is_one_of(type.text, kDiscountTypes))
    return Checked::refused(ErrorCode::parameter_invalid, "discount_type", "Expected percentage, fixed or null.");
  if (value.present && !is_decimal_amount(value.text))
    return Checked::refused(ErrorCode::parameter_invalid, "discount_value", kAmountMessage);
  return {kUpdateVariant,       ctx.caller.store(),   ctx.match.id,
          ctx.match.variant_id, optional_text(price), type.present ? "true" : "false",
          optional_text(type),  optional_text(value)};
}

constexpr json::Field kStockFields[] = {
    {"mode", json::FieldType::string, true},
    {"quantity", json::FieldType::int32, true},
    {"note", json::FieldType::string},
};

WriteCall read_stock(const Context& ctx, FieldValues v) {
  const std::string_view mode = v[0].text;
  const std::int64_t quantity = v[1].number;
  if (!is_one_of(mode, kStockModes))
    return Checked::refused(ErrorCode::parameter_invalid, "mode", OneOfMessage<kStockModes>::text);
  if (mode == kStockModeSet && quantity < 0)
    return Checked::refused(ErrorCode::parameter_invalid, "quantity", "With mode set, quantity must be 0 or more.");
  if (mode == kStockModeAdjust && quantity == 0)
    return Checked::refused(ErrorCode::parameter_invalid, "quantity", "With mode adjust, quantity must not be 0.");
  if (v[2].present && code_points(v[2].text) > 200)
    return Checked::refused(ErrorCode::parameter_invalid, "note", "Expected at most 200 characters.");
  return {kChangeStock, ctx.caller.store(), ctx.match.id,        ctx.match.variant_id,
          mode,         quantity,           optional_text(v[2]), ctx.caller.key()};
}

}  // namespace

runtime::task<void> patch_variant(Context& ctx) { return run_write(ctx, {kVariantFields, read_variant}); }

runtime::task<void> post_variant_stock(Context& ctx) { return run_write(ctx, {kStockFields, read_stock}); }

}  // namespace storeapi::api
