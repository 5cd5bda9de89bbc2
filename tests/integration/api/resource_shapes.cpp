#include "resource_shapes.hpp"

#include <array>
#include <string_view>

#include "json_schema.hpp"

namespace storeapi::testing {
namespace {

using std::string_view;

// The spec's value sets.
constexpr std::array<string_view, 9> kOrderStatuses{
    "pending", "pending_payment", "captured", "completed", "canceled", "failed", "confirmed", "refunded", "draft"};
constexpr std::array<string_view, 9> kFulfillment{
    "pending", "confirmed", "processing", "ready", "shipped", "delivered", "canceled", "returned", "fulfilled"};
constexpr std::array<string_view, 4> kChannels{"storefront", "marketplace", "platform", "dashboard"};
constexpr std::array<string_view, 4> kProductTypes{"physical", "digital", "consulting", "webinar"};
constexpr std::array<string_view, 7> kProductStatuses{"pending",  "approved",  "deleted", "archived",
                                                      "featured", "in_review", "draft"};
constexpr std::array<string_view, 2> kDiscountTypes{"percentage", "fixed"};
constexpr std::array<string_view, 4> kBookingStatuses{"pending", "accepted", "canceled", "initiated"};

const Field kOrder[] = {
    {"object", Kind::string, false, {}, "order"},
    {"id", Kind::uuid},
    {"order_number", Kind::integer},
    {"status", Kind::string, false, kOrderStatuses},
    {"fulfillment_status", Kind::string, false, kFulfillment},
    {"channel", Kind::string, false, kChannels},
    {"currency", Kind::currency},
    {"subtotal", Kind::amount},
    {"shipping_total", Kind::amount},
    {"tax_total", Kind::amount},
    {"total", Kind::amount},
    {"payment_method", Kind::string},
    {"payment_gateway", Kind::string},
    {"paid_at", Kind::timestamp, true},
    {"tracking_number", Kind::string, true},
    {"tracking_carrier", Kind::string, true},
    {"customer", Kind::object},
    {"billing_address", Kind::object},
    {"shipping_address", Kind::object},
    {"line_items", Kind::array},
    {"created_at", Kind::timestamp},
    {"updated_at", Kind::timestamp},
};

// The order's and the booking's customer snapshot.
const Field kCustomerRef[] = {
    {"id", Kind::uuid}, {"name", Kind::string}, {"email", Kind::string}, {"phone", Kind::string}};

const Field kAddress[] = {
    {"first_name", Kind::string}, {"last_name", Kind::string},   {"phone", Kind::string},
    {"line1", Kind::string},      {"line2", Kind::string, true}, {"city", Kind::string},
    {"state", Kind::string},      {"postal_code", Kind::string}, {"country", Kind::string},
    {"country_code", Kind::string},
};

const Field kLineItem[] = {
    {"id", Kind::uuid},           {"product_id", Kind::uuid},     {"product_name", Kind::string},
    {"variant_id", Kind::uuid},   {"variant_title", Kind::string}, {"quantity", Kind::integer},
    {"unit_price", Kind::amount}, {"unit_discount", Kind::amount}, {"total", Kind::amount},
};

const Field kProduct[] = {
    {"object", Kind::string, false, {}, "product"},
    {"id", Kind::uuid},
    {"name", Kind::string},
    {"slug", Kind::string},
    {"type", Kind::string, false, kProductTypes},
    {"status", Kind::string, false, kProductStatuses},
    {"currency", Kind::currency},
    {"min_price", Kind::amount},
    {"max_price", Kind::amount},
    {"category_id", Kind::uuid, true},
    {"tags", Kind::strings},
    {"images", Kind::strings},
    {"translations", Kind::array},
    {"variants", Kind::array},
    {"created_at", Kind::timestamp},
    {"updated_at", Kind::timestamp},
};

const Field kTranslation[] = {{"locale", Kind::string}, {"name", Kind::string}, {"description", Kind::string}};

const Field kVariant[] = {
    {"object", Kind::string, false, {}, "product_variant"},
    {"id", Kind::uuid},
    {"product_id", Kind::uuid},
    {"title", Kind::string},
    {"sku", Kind::string},
    {"barcode", Kind::string, true},
    {"price", Kind::amount},
    {"discount_type", Kind::string, true, kDiscountTypes},
    {"discount_value", Kind::amount},
    {"stock", Kind::integer, true},
    {"low_stock_threshold", Kind::integer},
    {"option1", Kind::string, true},
    {"option2", Kind::string, true},
    {"option3", Kind::string, true},
    {"position", Kind::integer},
    {"image_url", Kind::string, true},
    {"created_at", Kind::timestamp},
    {"updated_at", Kind::timestamp},
};

const Field kBooking[] = {
    {"object", Kind::string, false, {}, "booking"},
    {"id", Kind::uuid},
    {"status", Kind::string, false, kBookingStatuses},
    {"date", Kind::date},
    {"time", Kind::hhmm},
    {"timezone", Kind::string},
    {"duration_minutes", Kind::integer},
    {"meeting_method", Kind::string},
    {"meeting_link", Kind::string},
    {"order_id", Kind::uuid},
    {"product_id", Kind::uuid},
    {"product_name", Kind::string},
    {"customer", Kind::object},
    {"created_at", Kind::timestamp},
};

const Field kCustomer[] = {
    {"object", Kind::string, false, {}, "customer"},
    {"id", Kind::uuid},
    {"name", Kind::string},
    {"email", Kind::string},
    {"phone", Kind::string},
    {"source", Kind::string},
    {"email_status", Kind::string},
    {"unsubscribed_at", Kind::timestamp, true},
    {"tags", Kind::strings},
    {"created_at", Kind::timestamp},
    {"updated_at", Kind::timestamp},
};

const Field kListEnvelope[] = {
    {"object", Kind::string, false, {}, "list"},
    {"data", Kind::array},
    {"has_more", Kind::boolean},
    {"next_cursor", Kind::string, true},
};

// Checks `record[name]` as an object of `fields` (its presence is the parent's check).
void check_member(simdjson::dom::element record, string_view name, std::span<const Field> fields,
                  const std::string& where, std::vector<std::string>& problems) {
  simdjson::dom::element member;
  if (!record[name].get(member) && !member.is_null()) check_object(member, fields, where + "." + std::string(name), problems);
}

// Checks each item of the array `record[name]` as an object of `fields`.
void check_items(simdjson::dom::element record, string_view name, std::span<const Field> fields,
                 const std::string& where, std::vector<std::string>& problems) {
  simdjson::dom::array items;
  if (record[name].get(items)) return;
  std::size_t i = 0;
  for (simdjson::dom::element item : items) {
    check_object(item, fields, where + "." + std::string(name) + "[" + std::to_string(i++) + "]", problems);
  }
}

}  // namespace

void check_order(simdjson::dom::element order, const std::string& where, std::vector<std::string>& problems) {
  check_object(order, kOrder, where, problems);
  check_member(order, "customer", kCustomerRef, where, problems);
  check_member(order, "billing_address", kAddress, where, problems);
  check_member(order, "shipping_address", kAddress, where, problems);
  check_items(order, "line_items", kLineItem, where, problems);
}

void check_product(simdjson::dom::element product, const std::string& where, std::vector<std::string>& problems) {
  check_object(product, kProduct, where, problems);
  check_items(product, "translations", kTranslation, where, problems);
  check_items(product, "variants", kVariant, where, problems);
}

void check_booking(simdjson::dom::element booking, const std::string& where, std::vector<std::string>& problems) {
  check_object(booking, kBooking, where, problems);
  check_member(booking, "customer", kCustomerRef, where, problems);
}

void check_customer(simdjson::dom::element customer, const std::string& where, std::vector<std::string>& problems) {
  check_object(customer, kCustomer, where, problems);
}

void check_list_envelope(simdjson::dom::element list, std::vector<std::string>& problems) {
  check_object(list, kListEnvelope, "list", problems);
}

}  // namespace storeapi::testing
