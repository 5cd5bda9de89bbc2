#pragma once
// The Idempotency-Key of a write (docs/DECISIONS.md, "Idempotency"): the header's rules
// and the request fingerprint a key is bound to, read before the write goes to the
// database, and the purge of the idempotency_keys table (sql/functions/30_idempotency.sql).
// How a write's statement took its key is read from its answer (KeyOutcome,
// api/writes/write_statements.hpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/routing/pods.hpp"
#include "db/pool.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"
#include "http/request.hpp"
#include "json/body.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// The body as validation left it: the endpoint's fields and the values it read.
struct ValidatedBody {
  std::span<const json::Field> fields;
  std::span<const json::FieldValue> values;  // one per field
};

// The request's Idempotency-Key and, when it is valid, the fingerprint the key is bound
// to: read once, before the write goes to the database.
struct IdempotencyKey {
  enum class State : std::uint8_t { absent, valid, invalid };
  State state = State::absent;
  std::string_view text;    // the header value when valid
  std::string fingerprint;  // fingerprint(req, body) when valid, else empty
};

// At most 255 characters, each visible ASCII or space, and not empty. Keys are compared
// byte for byte, so the restriction to ASCII keeps "the same key" unambiguous (and keeps
// bytes PostgreSQL text cannot hold out of the database).
bool is_valid_idempotency_key(std::string_view key);

// The request's Idempotency-Key, `header` (its first value; nullopt when not sent: the
// write reads its headers in one pass, api/writes/write_request.hpp), fingerprinted with
// `body` (nullopt: the body failed validation) when it is valid.
IdempotencyKey read_idempotency_key(std::optional<std::string_view> header, const http::Request& req,
                                    const std::optional<ValidatedBody>& body);

// SHA-256 (hex) over the method, the path as sent (ids included) and the body: its
// validated fields in declaration order, each as absent, null, a length-prefixed string
// or an integer, so that a retry that reorders members or changes whitespace is the same
// request; or, for a body that failed validation (nullopt: no validated fields to go
// by), its raw bytes under a name no field has, so that it never equals a validated one.
std::string fingerprint(const http::Request& req, const std::optional<ValidatedBody>& body);

// (limit) → how many expired keys were deleted.
#define STOREAPI_PURGED_KEYS_COLUMNS(X) X(purge_idempotency_keys, int4)
STOREAPI_DB_ROW(PurgedKeys, STOREAPI_PURGED_KEYS_COLUMNS);
extern const db::Statement kPurgeIdempotencyKeys;

// Deletes keys taken more than 24 hours ago, every few minutes, forever, on every pod the
// directory lists then. Expiry itself is exact without it (an expired key is free again
// when next taken); this keeps the tables small. Runs on one core.
runtime::task<void> purge_idempotency_keys(Pods& pods);

}  // namespace storeapi::api
