#pragma once
// The Idempotency-Key of a write (docs/DECISIONS.md, "Idempotency"): the header's rules,
// the request fingerprint a key is bound to, how a write's statement took its key, and
// the purge of the idempotency_keys table (sql/functions/30_idempotency.sql).
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

// The request's Idempotency-Key header (the first, if sent twice), fingerprinted with
// `body` (nullopt: the body failed validation) when it is valid.
IdempotencyKey read_idempotency_key(const http::Request& req, const std::optional<ValidatedBody>& body);

// SHA-256 (hex) over the method, the path as sent (ids included) and the body: its
// validated fields in declaration order, each as absent, null, a length-prefixed string
// or an integer, so that a retry that reorders members or changes whitespace is the same
// request; or, for a body that failed validation (nullopt: no validated fields to go
// by), its raw bytes under a name no field has, so that it never equals a validated one.
std::string fingerprint(const http::Request& req, const std::optional<ValidatedBody>& body);

// How a keyed write's statement took its key (the outcome column of every write
// statement, sql/functions/30_idempotency.sql).
enum class KeyOutcome : std::uint8_t {
  run,          // the write ran (or the request had no key)
  replay,       // answered with the stored result; nothing ran
  mismatch,     // the key belongs to another request
  in_progress,  // the key's first request is still running
  fenced,       // the store's writes are held on this database (a move); nothing ran
};
// nullopt for a text that is none of them.
std::optional<KeyOutcome> parse_key_outcome(std::string_view text);

// (limit) → how many expired keys were deleted.
#define STOREAPI_PURGED_KEYS_COLUMNS(X) X(purge_idempotency_keys, int4)
STOREAPI_DB_ROW(PurgedKeys, STOREAPI_PURGED_KEYS_COLUMNS);
extern const db::Statement kPurgeIdempotencyKeys;

// storeapi_idempotency_outcomes_total: what a keyed write's claim came to (run, replay,
// mismatch, in_progress), and "released": a keyed write that failed with a 5xx, whose
// rolled-back transaction left the key free.
void count_key_outcome(KeyOutcome outcome);
void count_key_released();

// Deletes keys taken more than 24 hours ago, every few minutes, forever, on every pod the
// directory lists then. Expiry itself is exact without it (an expired key is free again
// when next taken); this keeps the tables small. Runs on one core.
runtime::task<void> purge_idempotency_keys(Pods& pods);

}  // namespace storeapi::api
