#include "admin/seed/writer.hpp"

#include "admin/base/database.hpp"

#include <array>
#include <cstdio>
#include <optional>
#include <vector>

namespace storeapi::admin::seed {
namespace {

std::string amount(Cents cents) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%02lld", static_cast<long long>(cents / 100),
                static_cast<long long>(cents % 100));
  return buf;
}

std::string ts(Micros t) { return timefmt::format_ms_utc(t); }

std::optional<std::string> ts(const std::optional<Micros>& t) {
  if (!t) return std::nullopt;
  return ts(*t);
}

// Streams `rows` into `table` through `row_of`, reporting progress every 1000 rows.
template <typename Row, typename RowToTuple>
void copy(pqxx::work& work, const char* table, std::vector<std::string> columns,
          const std::vector<Row>& rows, Progress& progress, RowToTuple row_of) {
  pqxx::stream_to stream(work, table, columns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    stream << row_of(rows[i]);
    if (i % 1000 == 0) progress.update(table, i, rows.size());
  }
  stream.complete();
  progress.update(table, rows.size(), rows.size());
  // Statistics now, before the next table's foreign-key checks plan their lookups into
  // this one: planned against an "empty" table they would scan instead of using the key.
  work.exec(std::string("analyze ") + table);
}

}  // namespace

void write(pqxx::work& work, const StoreInfo& store, const SeedData& d, Progress& progress) {
  const std::string& sid = store.id;
  copy(work, "categories", {"store_id", "id", "name", "slug", "created_at", "updated_at"}, d.categories,
       progress, [&](const CategoryRow& c) {
         return std::make_tuple(sid, c.id, c.name, c.slug, ts(c.created_at), ts(c.created_at));
       });
  copy(work, "products",
       {"store_id", "id", "name", "slug", "type", "status", "category_id", "tags", "images", "deleted_at",
        "created_at", "updated_at"},
       d.products, progress, [&](const ProductRow& p) {
         return std::make_tuple(sid, p.id, p.name, p.slug, p.type, p.status, p.category_id, text_array_literal(p.tags),
                                text_array_literal(p.images), ts(p.deleted_at), ts(p.created_at), ts(p.updated_at));
       });
  std::vector<std::pair<const ProductRow*, const TranslationRow*>> translations;
  for (const auto& p : d.products)
    for (const auto& t : p.translations) translations.emplace_back(&p, &t);
  copy(work, "product_translations", {"store_id", "product_id", "locale", "name", "description"}, translations,
       progress, [&](const auto& pt) {
         return std::make_tuple(sid, pt.first->id, pt.second->locale, pt.second->name, pt.second->description);
       });
  copy(work, "variants",
       {"store_id", "id", "product_id", "title", "sku", "barcode", "price", "discount_type", "discount_value",
        "stock", "low_stock_threshold", "option1", "option2", "option3", "position", "image_url", "deleted_at",
        "created_at", "updated_at"},
       d.variants, progress, [&](const VariantRow& v) {
         return std::make_tuple(sid, v.id, d.products[v.product].id, v.title, v.sku, v.barcode, amount(v.price),
                                v.discount_type, amount(v.discount_value), v.stock, v.low_stock_threshold,
                                v.option1, v.option2, v.option3, v.position, v.image_url, ts(v.deleted_at),
                                ts(v.created_at), ts(v.updated_at));
       });
  copy(work, "stock_movements",
       {"store_id", "id", "variant_id", "product_id", "mode", "quantity", "delta", "before", "after", "note",
        "source", "created_at"},
       d.stock_movements, progress, [&](const StockMovementRow& m) {
         const VariantRow& v = d.variants[m.variant];
         return std::make_tuple(sid, m.id, v.id, d.products[v.product].id, "set", *v.stock, *v.stock, nullptr,
                                *v.stock, "Initial stock", "seed", ts(m.created_at));
       });
  copy(work, "customers",
       {"store_id", "id", "name", "email", "phone", "source", "email_status", "unsubscribed_at", "tags",
        "created_at", "updated_at"},
       d.customers, progress, [&](const CustomerRow& c) {
         return std::make_tuple(sid, c.id, c.name, c.email, c.phone, c.source, c.email_status,
                                ts(c.unsubscribed_at), text_array_literal(c.tags), ts(c.created_at), ts(c.updated_at));
       });
  copy(work, "orders",
       {"store_id", "id", "order_number", "status", "fulfillment_status", "channel", "currency", "subtotal",
        "shipping_total", "tax_total", "total", "payment_method", "payment_gateway", "paid_at",
        "tracking_number", "tracking_carrier", "customer_id", "customer_name", "customer_email",
        "customer_phone", "billing_address", "shipping_address", "created_at", "updated_at"},
       d.orders, progress, [&](const OrderRow& o) {
         const CustomerRow& c = d.customers[o.customer];
         return std::make_tuple(sid, o.id, o.order_number, o.status, o.fulfillment_status, o.channel,
                                store.currency, amount(o.subtotal), amount(o.shipping_total),
                                amount(o.tax_total), amount(o.total), o.payment_method, o.payment_gateway,
                                ts(o.paid_at), o.tracking_number, o.tracking_carrier, c.id, c.name, c.email,
                                c.phone, o.billing_address, o.shipping_address, ts(o.created_at),
                                ts(o.updated_at));
       });
  copy(work, "order_line_items",
       {"store_id", "id", "order_id", "position", "product_id", "product_name", "variant_id", "variant_title",
        "quantity", "unit_price", "unit_discount", "total"},
       d.line_items, progress, [&](const LineItemRow& li) {
         const VariantRow& v = d.variants[li.variant];
         const ProductRow& p = d.products[v.product];
         return std::make_tuple(sid, li.id, d.orders[li.order].id, li.position, p.id, p.name, v.id, v.title,
                                li.quantity, amount(li.unit_price), amount(li.unit_discount), amount(li.total));
       });
  copy(work, "bookings",
       {"store_id", "id", "status", "booking_date", "booking_time", "timezone", "duration_minutes",
        "meeting_method", "meeting_link", "order_id", "product_id", "product_name", "customer_id",
        "customer_name", "customer_email", "customer_phone", "created_at", "updated_at"},
       d.bookings, progress, [&](const BookingRow& b) {
         const OrderRow& o = d.orders[b.order];
         const CustomerRow& c = d.customers[o.customer];
         const ProductRow& p = d.products[d.variants[b.variant].product];
         return std::make_tuple(sid, b.id, b.status, b.date, b.time, b.timezone, b.duration_minutes,
                                b.meeting_method, b.meeting_link, o.id, p.id, p.name, c.id, c.name, c.email,
                                c.phone, ts(b.created_at), ts(b.updated_at));
       });
  // Each row's document was rendered as it was copied: the products' before their
  // translations and variants, the orders' before their line items (sql/functions/10_render.sql).
  work.exec_params("select api.render_documents($1)", sid);
}

}  // namespace storeapi::admin::seed
