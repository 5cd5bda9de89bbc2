#pragma once
// Every /v1 endpoint, one function each, dispatched by route id (application.cpp). Each
// validates its input, runs its database unit and fills the response.
#include "api/context.hpp"
#include "api/list_sql.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

runtime::task<void> get_store(Context& ctx);
// GET /debug/stages: every core's stage histograms summed, as
// {"stages":{"parse":[[highest ns in the bucket, count], ...], ...}}, buckets ascending.
void render_stage_timings(std::string& out);

// Writes (write.hpp has what they share).
runtime::task<void> post_order_fulfillment(Context& ctx);
runtime::task<void> post_booking_accept(Context& ctx);
runtime::task<void> post_booking_cancel(Context& ctx);
runtime::task<void> patch_variant(Context& ctx);
runtime::task<void> post_variant_stock(Context& ctx);

runtime::task<void> list_orders(Context& ctx);
runtime::task<void> get_order(Context& ctx);
runtime::task<void> list_bookings(Context& ctx);
runtime::task<void> get_booking(Context& ctx);
runtime::task<void> list_products(Context& ctx);
runtime::task<void> get_product(Context& ctx);
runtime::task<void> list_customers(Context& ctx);
runtime::task<void> get_customer(Context& ctx);

// The statements of each resource's read endpoints (statements.cpp prepares them).
const ReadStatements& order_reads();
const ReadStatements& booking_reads();
const ReadStatements& product_reads();
const ReadStatements& customer_reads();

}  // namespace storeapi::api
