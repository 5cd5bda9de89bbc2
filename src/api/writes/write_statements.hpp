#pragma once
// The write endpoints' statements: each calls its SQL function (sql/functions/40_writes.sql)
// inside api.complete_write, which claims the Idempotency-Key, runs the write only when
// the claim allows and stores its answer under the key, in one transaction
// (sql/functions/30_idempotency.sql). The last three parameters are the key and the
// request's fingerprint (both null without a key) and its trace id (the events and
// e-mails the write queues carry it); every statement returns one row
// (outcome, status, body, error_code, error_param, error_message): outcome run | replay |
// mismatch | in_progress | fenced, status and body the answer to give (null for mismatch
// and in_progress), and for an error (status 400 or more) its body's fields apart (null
// when the body is not readable, or the field is absent or null).
#include <cstdint>
#include <optional>
#include <string_view>

#include "db/row.hpp"
#include "db/statement.hpp"

namespace storeapi::api {

#define STOREAPI_WRITE_ANSWER_COLUMNS(X) \
  X(outcome, text) X(status, int4) X(body, text) X(error_code, text) X(error_param, text) X(error_message, text)
STOREAPI_DB_ROW(WriteAnswer, STOREAPI_WRITE_ANSWER_COLUMNS);

// How a keyed write's statement took its key (WriteAnswer's outcome,
// sql/functions/30_idempotency.sql).
enum class KeyOutcome : std::uint8_t {
  run,          // the write ran (or the request had no key)
  replay,       // answered with the stored result; nothing ran
  mismatch,     // the key belongs to another request
  in_progress,  // the key's first request is still running
  fenced,       // the store's writes are held on this database (a move); nothing ran
};
// nullopt for a text that is none of them.
std::optional<KeyOutcome> parse_key_outcome(std::string_view text);

// (store, order, fulfillment_status, tracking_number, tracking_carrier, key, fingerprint, trace)
extern const db::Statement kFulfillOrder;
// (store, booking, key, fingerprint, trace)
extern const db::Statement kAcceptBooking;
extern const db::Statement kCancelBooking;
// (store, product, variant, price, discount_type_sent, discount_type, discount_value, key, fingerprint, trace)
extern const db::Statement kUpdateVariant;
// (store, product, variant, mode, quantity, note, api_key, key, fingerprint, trace)
extern const db::Statement kChangeStock;
// (store, key, fingerprint, status, body): a validation rejection stored under the key.
extern const db::Statement kStoreRejection;

}  // namespace storeapi::api
