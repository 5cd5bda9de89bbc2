#include "api/writes/write.hpp"

#include <array>
#include <cstdio>
#include <string>

#include "api/writes/idempotency.hpp"
#include "api/writes/validators.hpp"
#include "api/writes/write_statements.hpp"
#include "json/writer.hpp"
#include "metrics/registry.hpp"
#include "runtime/io.hpp"

namespace storeapi::api {
namespace {

// storeapi_writes_fenced_total: tries of a write its pod refused (fenced). Looked up once
// per thread (the lookup takes the registry's lock).
void count_fenced_write() {
  thread_local metrics::Counter& fenced =
      metrics::Registry::process()
          .counter("storeapi_writes_fenced_total",
                   "Tries of a write refused by its pod because the store's writes were fenced (a move's cut-over, "
                   "or the store had left that pod); each is tried again on the store's pod for up to 2 s, then "
                   "answered 503.")
          .with({});
  fenced.inc();
}

// `values` and `texts` are the request's (run_write's frame): what they hold lasts across
// the write's suspensions.
Checked validate(Context& ctx, const WriteEndpoint& endpoint, std::span<json::FieldValue> values,
                 json::BodyTexts& texts) {
  // An empty body is {} whatever its type says; a body needs to say it is JSON.
  if (!ctx.req.body.empty()) {
    bool found = false;
    std::string_view type = ctx.req.header("content-type", &found);
    if (!found || !is_json_media_type(type)) return Checked::refused(ErrorCode::unsupported_media_type, std::nullopt);
  }
  if (const json::BodyResult body = ctx.services.body_parser.parse(
          ctx.req.body, ctx.req.body.size() + http::Request::kBodyPadding, endpoint.fields, values, texts);
      !body.ok()) {
    return Checked::refused(error_code(body.status), body.param, body.message);
  }
  return endpoint.check ? endpoint.check(values) : Checked::passed();
}

// The write as its request gives it, read once (docs/DECISIONS.md, "Idempotency") and
// handed down: the validation's verdict, then its key with the fingerprint the key is
// bound to (the validated fields, or the raw body of a rejected request). The values and
// texts it was read into are run_write's (its frame).
struct WriteRequest {
  Checked validation;
  IdempotencyKey key;

  bool keyed() const noexcept { return key.state == IdempotencyKey::State::valid; }
};

WriteRequest read_write(Context& ctx, const WriteEndpoint& endpoint, std::span<json::FieldValue> values,
                        json::BodyTexts& texts) {
  WriteRequest write{validate(ctx, endpoint, values, texts), {}};
  write.key = read_idempotency_key(
      ctx.req, write.validation.ok() ? std::optional(ValidatedBody{endpoint.fields, values}) : std::nullopt);
  return write;
}

// How a rejection is kept under its key: {"code","param","message"}, wrapped into the
// error envelope (with the answering request's id) whenever it is answered.
std::string stored_error(const Checked& r) {
  std::string body;
  json::Writer w(body);
  w.begin_object().key("code").string(error_info(r.code()).name).key("param");
  if (r.param()) {
    w.string(*r.param());
  } else {
    w.null();
  }
  if (!r.message().empty()) w.key("message").string(r.message());
  w.end_object();
  return body;
}

// Answers a write's result: a resource as it is, a stored error in the envelope.
void answer(Context& ctx, std::int64_t status, std::string_view body) {
  if (status < 400) {
    ctx.res.status = static_cast<int>(status);
    ctx.res.body.assign(body);
    return;
  }
  static constexpr json::Field fields[] = {
      {"code", json::FieldType::string, true},
      {"param", json::FieldType::string_or_null},
      {"message", json::FieldType::string_or_null},
  };
  std::array<json::FieldValue, 3> v;
  json::BodyTexts texts;
  std::optional<ErrorCode> code;
  if (ctx.services.body_parser.parse(body, fields, v, texts).ok()) code = parse_error_code(v[0].text);
  if (!code) {
    std::fprintf(stderr, "storeapi: %.*s: unreadable stored error: %.*s\n", static_cast<int>(ctx.req.request_id.size()),
                 ctx.req.request_id.data(), static_cast<int>(body.size()), body.data());
    return fail(ctx, ErrorCode::internal_error);
  }
  std::optional<std::string_view> param;
  if (v[1].present && !v[1].is_null) param = v[1].text;
  // A 404 names the path's id, as the reads do. On the variant routes one lookup answers
  // for the product and its variant together, so no single parameter is named there.
  if (*code == ErrorCode::resource_not_found && !param && ctx.match.variant_id.empty()) param = "id";
  fail(ctx, *code, param, v[2].text);
}

// How a write's one statement ended.
enum class Finished : std::uint8_t {
  answered,  // the response is filled (the write's answer, a replay, a refusal, a 5xx)
  fenced,    // the pod held the store's writes: nothing ran, nothing answered yet
};

// Runs `unit` on `pod` — the write's one statement, which claims the key, runs the write
// when the claim allows and stores its answer, in one transaction, after the NOTIFY when
// the write `carries` the dispatchers' wake-up (DispatcherWake) — and answers, unless the
// pod fenced it. A 5xx (the statement failed, or its connection was lost) leaves the key
// free without more work: the transaction that would have stored the answer rolled back.
// `keyed`: the request has a valid Idempotency-Key (WriteRequest).
runtime::task<Finished> finish(Context& ctx, db::Unit& unit, Pod& pod, bool carries, bool keyed) {
  const db::Outcome outcome = co_await run_unit(ctx, unit, pod);
  // The write's statement follows the NOTIFY, if any (run_unit may add statements after).
  const db::Result& written = unit.result(carries ? 1 : 0);
  const Checked ran = check_database_answer(ctx, outcome, written);
  const bool answered = ran.ok();
  const auto row = written.row<WriteAnswer>(0);
  const std::optional<KeyOutcome> taken =
      answered && written.rows() == 1 ? parse_key_outcome(row.outcome()) : std::nullopt;
  // A write that ran and succeeded has committed outbox rows (or, rarely, changed nothing).
  const bool outbox_rows = taken == KeyOutcome::run && row.status() == 200;
  pod.dispatcher_wake().after_write(carries, answered, outbox_rows);
  if (!answered) {  // 503 or 500, as for reads
    fail(ctx, ran);
    if (keyed) count_key_released();
    co_return Finished::answered;
  }
  if (!taken) {
    fail(ctx, ErrorCode::internal_error);
    co_return Finished::answered;
  }
  if (keyed) count_key_outcome(*taken);
  switch (*taken) {
    case KeyOutcome::mismatch:
      fail(ctx, ErrorCode::idempotency_mismatch);
      co_return Finished::answered;
    case KeyOutcome::in_progress:
      fail(ctx, ErrorCode::idempotency_in_progress);
      co_return Finished::answered;
    case KeyOutcome::fenced:
      co_return Finished::fenced;
    case KeyOutcome::replay:
      ctx.res.add_header("Idempotent-Replayed", "true");
      break;
    case KeyOutcome::run:
      break;
  }
  answer(ctx, row.status(), row.body());
  co_return Finished::answered;
}

// Builds the write's unit for the store's pod with `build(unit, pod)` (which returns
// whether the unit carries the dispatchers' wake-up), runs it and answers. A write its pod
// fenced (docs/DECISIONS.md, "Pods": a move's cut-over, or the store has left that pod)
// ran nothing, so it is tried again, with or without an Idempotency-Key: the store is
// forgotten by every core of this node and the key looked up again in the directory, so
// the next try goes to the store's pod as the directory has it then. Past
// kFencedRetryFor it is answered 503 with Retry-After.
template <class Build>
runtime::task<void> write_on_pod(Context& ctx, bool keyed, Build build) {
  const auto give_up_at = runtime::Clock::now() + kFencedRetryFor;
  for (bool first = true;; first = false) {
    const PodLookup pod = co_await ctx.services.pods.find(ctx.caller.pod);
    if (!pod.ok()) {
      fail_unavailable(ctx);
      co_return;
    }
    db::Unit unit;
    const bool carries = build(unit, pod.pod());
    const Finished finished = co_await finish(ctx, unit, pod.pod(), carries, keyed);
    if (finished == Finished::answered) co_return;
    count_fenced_write();
    if (runtime::Clock::now() + kFencedRetryStep >= give_up_at) {
      fail_unavailable(ctx);
      co_return;
    }
    // Once per write: the other cores' requests of the store then look it up afresh
    // instead of meeting the fence themselves.
    if (first) ctx.services.forget_store(ctx.caller.store());
    co_await runtime::sleep_for(kFencedRetryStep);
    bool present = false;
    const std::string_view authorization = ctx.req.header("authorization", &present);
    // Whatever kept it from being looked up again, the write is answered as one its store
    // could not take: 503.
    if (co_await ctx.services.authenticator.relocate(present ? std::optional(authorization) : std::nullopt,
                                                      ctx.caller) != auth::AuthStatus::ok) {
      fail_unavailable(ctx);
      co_return;
    }
  }
}

// A rejection is answered, and stored under the key when the request has a valid one
// (the spec keeps every 4xx); the key is bound to the raw body then (read_write).
runtime::task<void> reject(Context& ctx, const WriteRequest& write) {
  const Checked& rejection = write.validation;
  if (!write.keyed()) {
    fail(ctx, rejection);
    co_return;
  }
  const std::string body = stored_error(rejection);
  co_await write_on_pod(ctx, true, [&](db::Unit& unit, Pod&) {
    unit.add(kStoreRejection, {ctx.caller.store(), write.key.text, std::string_view(write.key.fingerprint),
                               error_info(rejection.code()).status, std::string_view(body)});
    return false;  // it queues nothing to announce
  });
}

}  // namespace

runtime::task<void> run_write(Context& ctx, WriteEndpoint endpoint) {
  // Before the key is read: a refused query string is not the endpoint's answer and is
  // never stored under the key.
  http::Query query;  // a refusal may name a parameter in it
  if (const Checked checked = check_no_query_params(query, ctx.req.query); !checked.ok()) {
    fail(ctx, checked);
    co_return;
  }
  // The body's values, owned by this frame: valid across the co_awaits below.
  std::array<json::FieldValue, kMaxWriteFields> storage;
  const std::span<json::FieldValue> values = std::span(storage).first(endpoint.fields.size());
  json::BodyTexts texts;
  const WriteRequest write = read_write(ctx, endpoint, values, texts);
  if (!write.validation.ok()) {
    co_await reject(ctx, write);
    co_return;
  }
  if (write.key.state == IdempotencyKey::State::invalid) {
    fail(ctx, ErrorCode::parameter_invalid, "Idempotency-Key",
         "Expected 1 to 255 characters, each printable ASCII.");
    co_return;
  }
  const db::Param key_param = write.keyed() ? db::Param(write.key.text) : db::Param(std::nullopt);
  const db::Param fingerprint_param =
      write.keyed() ? db::Param(std::string_view(write.key.fingerprint)) : db::Param(std::nullopt);
  co_await write_on_pod(ctx, write.keyed(), [&](db::Unit& unit, Pod& pod) {
    // First, so that a failed NOTIFY fails the write too (the rest of the transaction is
    // skipped) rather than roll back a write whose answer came already.
    const bool carries = pod.dispatcher_wake().take_turn();
    if (carries) unit.add(kNotifyDispatchers, {});
    endpoint.add(unit, ctx, values, key_param, fingerprint_param);
    return carries;
  });
}

}  // namespace storeapi::api
