#include "api/writes/write_statements.hpp"

// One statement per write: the Idempotency-Key is claimed, the write runs when the claim
// says so, and its answer is stored under the key, all in the statement's one
// transaction (sql/functions/30_idempotency.sql). KEY, FINGERPRINT and TRACE name the
// statement's parameters holding them. The request's trace id is kept for the
// transaction (api.set_trace_id) just before the write runs — CASE tests its branches in
// order — so that the events and e-mails it queues carry it, without a statement of its own.
// An error answer's fields come apart from its body (api.error_fields,
// sql/functions/35_write_errors.sql), read only for a status of 400 or more: OFFSET 0
// keeps the subquery whole, so its condition is checked before the function is called.
#define STOREAPI_KEYED_WRITE(KEY, FINGERPRINT, TRACE, CALL)                                                  \
  "select a.outcome, a.status, a.body, e.code as error_code, e.param as error_param,"                        \
  " e.message as error_message from api.claim_idempotency_key($1, " KEY ", " FINGERPRINT ") c,"             \
  " lateral api.complete_write($1, " KEY ", " FINGERPRINT ", c, case when c.outcome <> 'run' then null"       \
  " when api.set_trace_id(" TRACE ") then " CALL " end) a"                                                   \
  " left join lateral (select * from api.error_fields(a.body) where a.status >= 400 offset 0) e on true"

// The parameters every keyed write ends with.
#define STOREAPI_KEYED_WRITE_PARAMS \
  {"key", db::Type::text}, {"fingerprint", db::Type::text}, { "trace", db::Type::text }

namespace storeapi::api {
namespace {

constexpr db::Column kFulfillParams[] = {{"store", db::Type::uuid},          {"order", db::Type::uuid},
                                         {"fulfillment_status", db::Type::text}, {"tracking_number", db::Type::text},
                                         {"tracking_carrier", db::Type::text},   STOREAPI_KEYED_WRITE_PARAMS};
constexpr db::Column kBookingParams[] = {{"store", db::Type::uuid}, {"booking", db::Type::uuid},
                                         STOREAPI_KEYED_WRITE_PARAMS};
constexpr db::Column kVariantParams[] = {
    {"store", db::Type::uuid},         {"product", db::Type::uuid},
    {"variant", db::Type::uuid},       {"price", db::Type::numeric},
    {"discount_type_sent", db::Type::boolean}, {"discount_type", db::Type::text},
    {"discount_value", db::Type::numeric},     STOREAPI_KEYED_WRITE_PARAMS};
constexpr db::Column kStockParams[] = {{"store", db::Type::uuid},  {"product", db::Type::uuid},
                                       {"variant", db::Type::uuid}, {"mode", db::Type::text},
                                       {"quantity", db::Type::int4}, {"note", db::Type::text},
                                       {"api_key", db::Type::uuid}, STOREAPI_KEYED_WRITE_PARAMS};
// A rejection stores its answer under the key: no trace.
constexpr db::Column kRejectionParams[] = {{"store", db::Type::uuid}, {"key", db::Type::text},
                                           {"fingerprint", db::Type::text}, {"status", db::Type::int4},
                                           {"body", db::Type::text}};

}  // namespace

const db::Statement kFulfillOrder{"write_fulfill_order",
                                  STOREAPI_KEYED_WRITE("$6", "$7", "$8", "api.fulfill_order($1, $2, $3, $4, $5)"),
                                  kFulfillParams, WriteAnswer::columns};

const db::Statement kAcceptBooking{"write_accept_booking",
                                   STOREAPI_KEYED_WRITE("$3", "$4", "$5", "api.change_booking($1, $2, 'accept')"),
                                   kBookingParams, WriteAnswer::columns};

const db::Statement kCancelBooking{"write_cancel_booking",
                                   STOREAPI_KEYED_WRITE("$3", "$4", "$5", "api.change_booking($1, $2, 'cancel')"),
                                   kBookingParams, WriteAnswer::columns};

const db::Statement kUpdateVariant{
    "write_update_variant", STOREAPI_KEYED_WRITE("$8", "$9", "$10", "api.update_variant($1, $2, $3, $4, $5, $6, $7)"),
    kVariantParams, WriteAnswer::columns};

const db::Statement kChangeStock{
    "write_change_stock", STOREAPI_KEYED_WRITE("$8", "$9", "$10", "api.change_stock($1, $2, $3, $4, $5, $6, $7)"),
    kStockParams, WriteAnswer::columns};

// A request refused during validation, its answer ($4 status, $5 body) stored under the
// key like any other. It queues nothing: no trace id.
const db::Statement kStoreRejection{"write_store_rejection",
                                    STOREAPI_KEYED_WRITE("$2", "$3", "null", "($4, $5)::api.write_result"),
                                    kRejectionParams, WriteAnswer::columns};

std::optional<KeyOutcome> parse_key_outcome(std::string_view text) {
  if (text == "run") return KeyOutcome::run;
  if (text == "replay") return KeyOutcome::replay;
  if (text == "mismatch") return KeyOutcome::mismatch;
  if (text == "in_progress") return KeyOutcome::in_progress;
  if (text == "fenced") return KeyOutcome::fenced;
  return std::nullopt;
}

}  // namespace storeapi::api
