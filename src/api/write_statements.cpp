#include "api/write_statements.hpp"

// One statement per write: the Idempotency-Key is claimed, the write runs when the claim
// says so, and its answer is stored under the key, all in the statement's one
// transaction (sql/functions/30_idempotency.sql). KEY and FINGERPRINT name the statement's
// parameters holding them.
#define STOREAPI_KEYED_WRITE(KEY, FINGERPRINT, CALL)                                                  \
  "select a.outcome, a.status, a.body from api.claim_idempotency_key($1, " KEY ", " FINGERPRINT ") c," \
  " lateral api.complete_write($1, " KEY ", " FINGERPRINT ", c, case when c.outcome = 'run' then " CALL \
  " end) a"

namespace storeapi::api {

const db::Statement kFulfillOrder{
    "write_fulfill_order", STOREAPI_KEYED_WRITE("$6", "$7", "api.fulfill_order($1, $2, $3, $4, $5)"), 7};

const db::Statement kAcceptBooking{
    "write_accept_booking", STOREAPI_KEYED_WRITE("$3", "$4", "api.change_booking($1, $2, 'accept')"), 4};

const db::Statement kCancelBooking{
    "write_cancel_booking", STOREAPI_KEYED_WRITE("$3", "$4", "api.change_booking($1, $2, 'cancel')"), 4};

const db::Statement kUpdateVariant{
    "write_update_variant",
    STOREAPI_KEYED_WRITE("$8", "$9", "api.update_variant($1, $2, $3, $4, $5, $6, $7)"), 9};

const db::Statement kChangeStock{
    "write_change_stock", STOREAPI_KEYED_WRITE("$8", "$9", "api.change_stock($1, $2, $3, $4, $5, $6, $7)"), 9};

// A request refused during validation, its answer ($4 status, $5 body) stored under the
// key like any other.
const db::Statement kStoreRejection{
    "write_store_rejection", STOREAPI_KEYED_WRITE("$2", "$3", "($4, $5)::api.write_result"), 5};

}  // namespace storeapi::api
