#pragma once
// The rows the seed generates, before they are copied into the database. Amounts are
// integer cents; timestamps microseconds since the epoch (always whole milliseconds).
#include "common/time.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::admin::seed {

using Cents = std::int64_t;
using timefmt::Micros;

struct SeedSizes {
  long orders = 60;
  long products = 40;
  long customers = 20;
  long bookings = 20;
};

struct CategoryRow {
  std::string id, name, slug;
  Micros created_at;
};

struct TranslationRow {
  std::string locale, name, description;
};

struct ProductRow {
  std::string id, name, slug, type, status;
  std::optional<std::string> category_id;
  std::vector<std::string> tags, images;
  std::vector<TranslationRow> translations;
  std::optional<Micros> deleted_at;
  Micros created_at, updated_at;
};

struct VariantRow {
  std::string id;
  std::size_t product;  // index into SeedData::products
  std::string title, sku;
  std::optional<std::string> barcode;
  Cents price;
  std::optional<std::string> discount_type;
  Cents discount_value;  // cents for fixed, hundredths of a percent for percentage
  std::optional<int> stock;
  int low_stock_threshold;
  std::optional<std::string> option1, option2, option3;
  int position;
  std::optional<std::string> image_url;
  std::optional<Micros> deleted_at;
  Micros created_at, updated_at;
  int duration_minutes;  // consulting variants: the length of a session
};

// The address every order of the customer is billed to.
struct HomeAddress {
  std::string first_name, last_name, line1;
  std::optional<std::string> line2;
  std::size_t place;  // index into places()
};

struct CustomerRow {
  std::string id, name, email, phone, source, email_status;
  std::optional<Micros> unsubscribed_at;
  std::vector<std::string> tags;
  Micros created_at, updated_at;
  HomeAddress home;
};

struct LineItemRow {
  std::string id;
  std::size_t order;    // index into SeedData::orders
  std::size_t variant;  // index into SeedData::variants
  int position, quantity;
  Cents unit_price, unit_discount, total;
};

struct OrderRow {
  std::string id;
  long order_number;
  std::string status, fulfillment_status, channel;
  Cents subtotal, shipping_total, tax_total, total;
  std::string payment_method, payment_gateway;
  std::optional<Micros> paid_at;
  std::optional<std::string> tracking_number, tracking_carrier;
  std::size_t customer;  // index into SeedData::customers
  std::string billing_address, shipping_address;  // JSON objects
  Micros created_at, updated_at;
};

struct BookingRow {
  std::string id, status, date, time, timezone, meeting_method, meeting_link;
  int duration_minutes;
  std::size_t order;    // index into SeedData::orders
  std::size_t variant;  // the consulting variant booked, index into SeedData::variants
  Micros created_at, updated_at;
};

struct StockMovementRow {
  std::string id;
  std::size_t variant;  // index into SeedData::variants
  Micros created_at;
};

struct SeedData {
  std::vector<CategoryRow> categories;
  std::vector<ProductRow> products;
  std::vector<VariantRow> variants;
  std::vector<CustomerRow> customers;
  std::vector<OrderRow> orders;
  std::vector<LineItemRow> line_items;
  std::vector<BookingRow> bookings;
  std::vector<StockMovementRow> stock_movements;  // one initial `set` per tracked variant
};

}  // namespace storeapi::admin::seed
