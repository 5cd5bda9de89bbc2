#pragma once
// What every write endpoint shares (docs/DECISIONS.md, "Writes" and "Idempotency"): the
// validation in docs/DESIGN.md's order — the query string (writes take no parameters), 415,
// invalid_json, unknown / repeated / mistyped / missing fields, the endpoint's value
// rules, then the Idempotency-Key's format — the idempotency flow around the endpoint's
// SQL function, and the answer. An endpoint is its fields, its value rules and the
// statement it adds.
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "api/routing/context.hpp"
#include "db/unit.hpp"
#include "json/body.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

using FieldValues = std::span<const json::FieldValue>;

// How long a write its pod refused (fenced) is tried again before it is answered 503 with
// Retry-After. A move's cut-over holds the store's writes for about a second (its goal,
// docs/DECISIONS.md "Pods") and then flips the placement and announces it to every node;
// 2 s covers that with room, and stays far inside a client's request timeout.
inline constexpr std::chrono::milliseconds kFencedRetryFor{2'000};
// Between tries: short against that pause, long enough that a waiting write costs the
// directory a few key lookups, not hundreds.
inline constexpr std::chrono::milliseconds kFencedRetryStep{50};

// The most body fields a write endpoint takes: run_write keeps their values on its frame.
inline constexpr std::size_t kMaxWriteFields = 4;

struct WriteEndpoint {
  // A refusal is a 400 before the database is asked (not to be confused with
  // http::Rejection, the HTTP layer's refusals before any handler).
  using Check = Checked (*)(FieldValues values);
  using Add = void (*)(db::Unit& unit, const Context& ctx, FieldValues values, db::Param key, db::Param fingerprint);

  // consteval: endpoints are made of constants, so one with more fields than
  // kMaxWriteFields does not compile (the throw is not a constant expression).
  consteval WriteEndpoint(std::span<const json::Field> fields_, Check check_, Add add_)
      : fields(fields_), check(check_), add(add_) {
    if (fields.size() > kMaxWriteFields) throw "a write endpoint takes at most kMaxWriteFields fields";
  }

  std::span<const json::Field> fields;  // at most kMaxWriteFields
  // The endpoint's value rules, run once the body parser accepted the body; nullptr when
  // it has none.
  Check check;
  // Adds the endpoint's statement (api/writes/write_statements.hpp) to `unit`, with `key` and the
  // request's `fingerprint` (SQL null without an Idempotency-Key) and its trace id
  // (ctx.req.trace_id) as its last three parameters.
  Add add;
};

// Validates the request, runs the write (taking, replaying or refusing its
// Idempotency-Key) and fills the response. `endpoint` is taken by value: the task may
// outlive the expression that made it.
runtime::task<void> run_write(Context& ctx, WriteEndpoint endpoint);

// A string field as a statement parameter: SQL null when absent or null.
inline db::Param optional_text(const json::FieldValue& value) {
  if (!value.present || value.is_null) return std::nullopt;
  return value.text;
}

}  // namespace storeapi::api
