#include "api/write_statements.hpp"

namespace storeapi::api {

const db::Statement kFulfillOrder{
    "write_fulfill_order",
    "select status, body from api.finish_write($1, $6, api.fulfill_order($1, $2, $3, $4, $5, $6, $7))", 7};

const db::Statement kAcceptBooking{
    "write_accept_booking",
    "select status, body from api.finish_write($1, $3, api.change_booking($1, $2, 'accept', $3, $4))", 4};

const db::Statement kCancelBooking{
    "write_cancel_booking",
    "select status, body from api.finish_write($1, $3, api.change_booking($1, $2, 'cancel', $3, $4))", 4};

const db::Statement kUpdateVariant{
    "write_update_variant",
    "select status, body from api.finish_write($1, $8, api.update_variant($1, $2, $3, $4, $5, $6, $7, $8, $9))", 9};

const db::Statement kChangeStock{
    "write_change_stock",
    "select status, body from api.finish_write($1, $8, api.change_stock($1, $2, $3, $4, $5, $6, $7, $8, $9))", 9};

}  // namespace storeapi::api
