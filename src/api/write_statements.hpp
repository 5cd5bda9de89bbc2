#pragma once
// The write endpoints' statements: each calls its SQL function (sql/008_writes.sql)
// inside api.finish_write, which stores the result under the Idempotency-Key. The last
// two parameters are the key and the owner token (both null without a key); every
// statement returns (status, body), or no row when the key was not this request's.
#include "db/statement.hpp"

namespace storeapi::api {

// (store, order, fulfillment_status, tracking_number, tracking_carrier, key, token)
extern const db::Statement kFulfillOrder;
// (store, booking, key, token)
extern const db::Statement kAcceptBooking;
extern const db::Statement kCancelBooking;
// (store, product, variant, price, discount_type_sent, discount_type, discount_value, key, token)
extern const db::Statement kUpdateVariant;
// (store, product, variant, mode, quantity, note, api_key, key, token)
extern const db::Statement kChangeStock;

}  // namespace storeapi::api
