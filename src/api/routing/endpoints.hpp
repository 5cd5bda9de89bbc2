#pragma once
// Every /v1 endpoint, one function each, dispatched by route id (application.cpp). Each
// validates its input, runs its database unit and fills the response.
#include "api/routing/context.hpp"
#include "api/lists/resource_reads.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

runtime::task<void> get_store(Context& ctx);

// Writes (write.hpp has what they share).
runtime::task<void> post_order_fulfillment(Context& ctx);
runtime::task<void> post_booking_accept(Context& ctx);
runtime::task<void> post_booking_cancel(Context& ctx);
runtime::task<void> patch_variant(Context& ctx);
runtime::task<void> post_variant_stock(Context& ctx);

// Each resource's read endpoints (application.cpp dispatches to them) and their statements
// (statements.cpp prepares them).
const ResourceReads& order_reads();
const ResourceReads& booking_reads();
const ResourceReads& product_reads();
const ResourceReads& customer_reads();

}  // namespace storeapi::api
