#pragma once
// The Idempotency-Key of a write (docs/DECISIONS.md, "Idempotency"): the header's rules,
// the request fingerprint a key is bound to, the owner token of one attempt, and the
// statements over the idempotency_keys table (sql/008_writes.sql).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "db/pool.hpp"
#include "db/statement.hpp"
#include "http/request.hpp"
#include "json/body.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

struct IdempotencyKey {
  enum class State : std::uint8_t { absent, valid, invalid };
  State state = State::absent;
  std::string_view text;  // the header value when valid
};

// At most 255 characters, each visible ASCII or space, and not empty. Keys are compared
// byte for byte, so the restriction to ASCII keeps "the same key" unambiguous (and keeps
// bytes PostgreSQL text cannot hold out of the database).
bool is_valid_idempotency_key(std::string_view key);

// The request's Idempotency-Key header (the first, if sent twice).
IdempotencyKey read_idempotency_key(const http::Request& req);

// SHA-256 (hex) over the method, the path as sent (ids included) and the body's
// validated fields in declaration order, each as absent, null, a length-prefixed string
// or an integer: a retry that reorders members or changes whitespace is the same request.
std::string fingerprint(const http::Request& req, std::span<const json::Field> fields,
                        std::span<const json::FieldValue> values);
// The same over the raw body bytes, for a body that failed validation (it has no
// validated fields to go by).
std::string raw_fingerprint(const http::Request& req);

// A fresh random token naming one attempt at a key, as uuid text.
std::array<char, 36> new_owner_token();

// (store, key, fingerprint, token) → outcome ('run' | 'replay' | 'mismatch' |
// 'in_progress'), response_status, response_body.
extern const db::Statement kTakeIdempotencyKey;
// (store, key, token, status, body) → status, body: a validation rejection stored under
// the key; no row when the key was not ours.
extern const db::Statement kStoreRejection;
// (store, key, token): after a 5xx, frees the key if this attempt still holds it.
extern const db::Statement kReleaseIdempotencyKey;
// (limit) → how many expired keys were deleted.
extern const db::Statement kPurgeIdempotencyKeys;

// storeapi_idempotency_outcomes_total: what taking a key came to ("run", "replay",
// "mismatch", "in_progress") and keys "released" after a 5xx.
void count_idempotency_outcome(std::string_view outcome);

// Deletes keys taken more than 24 hours ago, every few minutes, forever. Expiry itself is
// exact without it (an expired key is free again when next taken); this keeps the table
// small. Runs on one core.
runtime::task<void> purge_idempotency_keys(db::Pool& pool);

}  // namespace storeapi::api
