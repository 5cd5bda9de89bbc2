#pragma once
// What every write endpoint shares (docs/DECISIONS.md, "Writes" and "Idempotency"): the
// validation in docs/DESIGN.md's order — the query string (writes take no parameters), 415,
// invalid_json, unknown / repeated / mistyped / missing fields, the endpoint's value
// rules, then the Idempotency-Key's format — the idempotency flow around the endpoint's
// SQL function, and the answer. An endpoint is its fields and one function: its value
// rules and the statement they let it run (WriteCall). The request is read once, up front
// (api/writes/write_request.hpp).
#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "api/routing/context.hpp"
#include "db/statement.hpp"
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
// The most parameters an endpoint gives its statement (WriteCall): all but the last three.
inline constexpr std::size_t kMaxWriteParams = 7;

// What an endpoint makes of the values its body gave: refused by its value rules (a 400
// before the database is asked), or its statement (api/writes/write_statements.hpp) with
// every parameter but the last three, which run_write adds: the Idempotency-Key and the
// request's fingerprint (SQL null without a key) and its trace id. The parameters are
// views into the request, the caller and the body's values, which last as long as the
// write.
class WriteCall {
 public:
  // Implicit, so that an endpoint returns Checked::refused(...) as it is.
  WriteCall(const Checked& refusal) noexcept : verdict_(refusal) {}  // NOLINT

  // The compiler refuses more than kMaxWriteParams parameters.
  template <class... P>
  WriteCall(const db::Statement& statement, const P&... params) noexcept
      : verdict_(Checked::passed()), statement_(&statement), params_{db::Param(params)...}, count_(sizeof...(P)) {
    static_assert(sizeof...(P) <= kMaxWriteParams, "a write statement takes at most kMaxWriteParams of its own");
  }

  const Checked& verdict() const noexcept { return verdict_; }
  // Only when the verdict passed.
  const db::Statement& statement() const noexcept { return *statement_; }
  std::span<const db::Param> params() const noexcept { return std::span(params_).first(count_); }

 private:
  Checked verdict_;
  const db::Statement* statement_ = nullptr;
  std::array<db::Param, kMaxWriteParams> params_{};
  std::size_t count_ = 0;
};

struct WriteEndpoint {
  // The endpoint's value rules, run once the body parser accepted the body, and its
  // statement when they pass. Called once per write: whatever the write does after, down
  // to its answer, it does with what this returned.
  using Read = WriteCall (*)(const Context& ctx, FieldValues values);

  // consteval: endpoints are made of constants, so one with more fields than
  // kMaxWriteFields does not compile (the throw is not a constant expression).
  consteval WriteEndpoint(std::span<const json::Field> fields_, Read read_) : fields(fields_), read(read_) {
    if (fields.size() > kMaxWriteFields) throw "a write endpoint takes at most kMaxWriteFields fields";
  }

  std::span<const json::Field> fields;  // at most kMaxWriteFields
  Read read;
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
