#pragma once
// What an endpoint works with: the request, the response it fills, the authenticated
// caller, the matched route, and the core's services.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "api/errors.hpp"
#include "api/routing/pods.hpp"
#include "api/routing/read_router.hpp"
#include "api/routing/router.hpp"
#include "auth/authenticator.hpp"
#include "db/pool.hpp"
#include "api/routing/query_refusal.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "json/body.hpp"

namespace storeapi::api {

// Per core, owned by the Application; reused from request to request. What a request
// parses lives in its own frame, so it lasts across the request's suspensions: a body's
// values in the json::BodyTexts the endpoint passes the body parser, a query string's in
// the endpoint's http::Query.
struct Services {
  Pods& pods;               // each store's units run on its pod
  ReadRouter& read_router;  // where on the pod: a standby or the primary
  json::BodyParser& body_parser;
  // A write its pod refused (fenced) looks the caller's key up again with it.
  auth::Authenticator& authenticator;
  // Forgets the store's cached keys and placement on every core of this process (the
  // `store:<id>` invalidation, applied locally without confirmation).
  const std::function<void(std::string_view store)>& forget_store;
  // Signs and checks list cursors; empty until read from the database (lists answer 503).
  const std::string& cursor_secret;
};

struct Context {
  const http::Request& req;
  http::Response& res;
  // Not const: a fenced write's retry updates its placement (Authenticator::relocate).
  auth::Caller& caller;
  const Match& match;
  Services& services;
};

// Turns `res` into the error response of `code`: status, envelope with the request id,
// and Retry-After where the code calls for one (503).
void fail(http::Response& res, std::string_view request_id, ErrorCode code,
          std::optional<std::string_view> param = std::nullopt, std::string_view message = {});
inline void fail(Context& ctx, ErrorCode code, std::optional<std::string_view> param = std::nullopt,
                 std::string_view message = {}) {
  fail(ctx.res, ctx.req.request_id, code, param, message);
}
// The same for an error the database answered, its code given by name (a write's:
// WriteAnswer's error fields, api/writes/write_statements.hpp). A name the catalogue does
// not hold is answered 500, logged with the request id and `answered`, the database's
// text of the error.
void fail_named(http::Response& res, std::string_view request_id, std::string_view code_name,
                std::optional<std::string_view> param, std::string_view message, std::string_view answered);

// Runs a unit of this request on the store's pod: a GET's on a standby that has replayed
// the store's last write (else the pod's primary), anything else on the primary,
// recording the store's write position (api/routing/read_router.hpp). Its database time
// counts against the request's database stages, not its render stage
// (metrics/stage_timing.hpp). A pod this node cannot reach or learn of: unavailable (503).
runtime::task<db::Outcome> run_unit(Context& ctx, db::Unit& unit);

// Answers a refused check (Checked::ok() false).
inline void fail(Context& ctx, const Checked& refused) {
  fail(ctx, refused.code(), refused.param(), refused.message());
}
// The database could not run a unit: 503 (unreachable or overloaded).
inline void fail_unavailable(Context& ctx) { fail(ctx, ErrorCode::service_unavailable); }

// Whether a unit ran and its statement `result` succeeded. If not, refused with
// service_unavailable (503) when the database was unreachable, overloaded, or cancelled
// the statement (statement_timeout, shutdown), else with internal_error (500), the
// failure written to stderr with the request's id.
Checked check_database_answer(const Context& ctx, db::Outcome outcome, const db::Result& result);

// How a unit's statement came out for the request: its result is there to read, or the
// request is answered already (503 or 500, as check_database_answer refuses).
enum class UnitRan : std::uint8_t { answered, failed };

// A write's unit on `pod`, the store's, already found (for its dispatchers' wake-up): run
// as run_unit runs it, then check_database_answer on its statement `statement`, in one
// call, so that a write's path enters this file once (docs/ARCHITECTURE.md §2, "A write,
// read once").
runtime::task<UnitRan> run_write_unit(Context& ctx, db::Unit& unit, Pod& pod, std::size_t statement);

}  // namespace storeapi::api
