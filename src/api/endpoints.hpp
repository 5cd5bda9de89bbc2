#pragma once
// Every /v1 endpoint, one function each, dispatched by route id (application.cpp). Each
// validates its input, runs its database unit and fills the response.
#include "api/context.hpp"
#include "api/list_sql.hpp"
#include "db/statement.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

runtime::task<void> get_store(Context& ctx);

runtime::task<void> list_orders(Context& ctx);
runtime::task<void> get_order(Context& ctx);
runtime::task<void> list_bookings(Context& ctx);
runtime::task<void> get_booking(Context& ctx);
runtime::task<void> list_products(Context& ctx);
runtime::task<void> get_product(Context& ctx);
runtime::task<void> list_customers(Context& ctx);
runtime::task<void> get_customer(Context& ctx);

// The statements of the read endpoints (statements.cpp prepares them): one record by
// ($1 store, $2 id), rendered; and each list's pages.
extern const db::Statement kOrderById;
extern const db::Statement kBookingById;
extern const db::Statement kProductById;
extern const db::Statement kCustomerById;
const PageStatements& order_pages();
const PageStatements& booking_pages();
const PageStatements& product_pages();
const PageStatements& customer_pages();

}  // namespace storeapi::api
