#include "api/write_statements.hpp"

// One statement per write: the Idempotency-Key is claimed, the write runs when the claim
// says so, and its answer is stored under the key, all in the statement's one
// transaction (sql/functions/30_idempotency.sql). KEY, FINGERPRINT and TRACE name the
// statement's parameters holding them. The request's trace id is kept for the
// transaction (api.set_trace_id) just before the write runs — CASE tests its branches in
// order — so that the events and e-mails it queues carry it, without a statement of its own.
#define STOREAPI_KEYED_WRITE(KEY, FINGERPRINT, TRACE, CALL)                                            \
  "select a.outcome, a.status, a.body from api.claim_idempotency_key($1, " KEY ", " FINGERPRINT ") c," \
  " lateral api.complete_write($1, " KEY ", " FINGERPRINT ", c, case when c.outcome <> 'run' then null" \
  " when api.set_trace_id(" TRACE ") then " CALL " end) a"

namespace storeapi::api {

const db::Statement kFulfillOrder{
    "write_fulfill_order", STOREAPI_KEYED_WRITE("$6", "$7", "$8", "api.fulfill_order($1, $2, $3, $4, $5)"), 8};

const db::Statement kAcceptBooking{
    "write_accept_booking", STOREAPI_KEYED_WRITE("$3", "$4", "$5", "api.change_booking($1, $2, 'accept')"), 5};

const db::Statement kCancelBooking{
    "write_cancel_booking", STOREAPI_KEYED_WRITE("$3", "$4", "$5", "api.change_booking($1, $2, 'cancel')"), 5};

const db::Statement kUpdateVariant{
    "write_update_variant",
    STOREAPI_KEYED_WRITE("$8", "$9", "$10", "api.update_variant($1, $2, $3, $4, $5, $6, $7)"), 10};

const db::Statement kChangeStock{
    "write_change_stock", STOREAPI_KEYED_WRITE("$8", "$9", "$10", "api.change_stock($1, $2, $3, $4, $5, $6, $7)"), 10};

// A request refused during validation, its answer ($4 status, $5 body) stored under the
// key like any other. It queues nothing: no trace id.
const db::Statement kStoreRejection{
    "write_store_rejection", STOREAPI_KEYED_WRITE("$2", "$3", "null", "($4, $5)::api.write_result"), 5};

}  // namespace storeapi::api
