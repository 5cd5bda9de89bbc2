#include "api/writes/write.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "api/writes/write_request.hpp"
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

// storeapi_idempotency_outcomes_total: what a keyed write's claim came to (run, replay,
// mismatch, in_progress, fenced), and "released": a keyed write that failed with a 5xx,
// whose rolled-back transaction left the key free. By KeyOutcome, then "released"; looked
// up once per thread (the lookup takes the registry's lock).
void count_key(std::size_t index) {
  static constexpr std::array<std::string_view, 6> kLabels{"run",         "replay", "mismatch",
                                                           "in_progress", "fenced", "released"};
  thread_local std::array<metrics::Counter*, kLabels.size()> counters{};
  if (!counters[index])
    counters[index] = &metrics::Registry::process()
                           .counter("storeapi_idempotency_outcomes_total",
                                    "Writes with an Idempotency-Key, by outcome (run, replay, mismatch, in_progress, "
                                    "fenced: held by a move, released: failed with a 5xx, the key left free).",
                                    {"outcome"})
                           .with({kLabels[index]});
  counters[index]->inc();
}
static_assert(static_cast<int>(KeyOutcome::fenced) == 4, "count_key's labels follow KeyOutcome's order");
void count_key_outcome(KeyOutcome outcome) { count_key(static_cast<std::size_t>(outcome)); }
void count_key_released() { count_key(5); }

// How a rejection is kept under its key: {"code","param","message"}, wrapped into the
// error envelope (with the answering request's id) whenever it is answered.
std::string stored_error(const ErrorInfo& info, const Checked& r) {
  std::string body;
  json::Writer w(body);
  w.begin_object().key("code").string(info.name).key("param");
  if (r.param()) {
    w.string(*r.param());
  } else {
    w.null();
  }
  if (!r.message().empty()) w.key("message").string(r.message());
  w.end_object();
  return body;
}

// Answers a write's result: a resource as it is, an error (one the write's function
// refused with, or one stored under the key) in the envelope, from its fields, which the
// statement gives apart from its body.
void answer(Context& ctx, std::int64_t status, const WriteAnswer& row) {
  if (status < 400) {
    ctx.res.status = static_cast<int>(status);
    ctx.res.body.assign(row.body());
    return;
  }
  std::optional<std::string_view> param;
  if (!row.is_null(WriteAnswer::Index::error_param)) param = row.error_param();
  // A 404 (resource_not_found) names the path's id, as the reads do. On the variant routes
  // one lookup answers for the product and its variant together, so no single parameter
  // is named there.
  if (status == 404 && !param && ctx.match.variant_id.empty()) param = "id";
  fail_named(ctx.res, ctx.req.request_id, row.error_code(), param, row.error_message(), row.body());
}

// How a write's one statement ended.
enum class Finished : std::uint8_t {
  answered,  // the response is filled (the write's answer, a replay, a refusal, a 5xx)
  fenced,    // the pod held the store's writes: nothing ran, nothing answered yet
};

// Runs `unit` on `pod` — the write's one statement, which claims the key, runs the write
// when the claim allows and stores its answer, in one transaction, after the NOTIFY when
// the write's `turn` carries the dispatchers' wake-up (DispatcherWake) — and answers,
// unless the pod fenced it. A 5xx (the statement failed, or its connection was lost)
// leaves the key free without more work: the transaction that would have stored the
// answer rolled back.
// `keyed`: the request has a valid Idempotency-Key (WriteRequest). What it reads after the
// database is the statement's answer; what it needs of the request came down with it.
runtime::task<Finished> finish(Context& ctx, db::Unit& unit, Pod& pod, WakeTurn turn, bool keyed) {
  // The write's statement follows the NOTIFY, if any (run_unit may add statements after).
  const std::size_t statement = turn.carries() ? 1 : 0;
  const UnitRan ran = co_await run_write_unit(ctx, unit, pod, statement);
  const bool answered = ran == UnitRan::answered;
  const db::Result& written = unit.result(statement);
  const auto row = written.row<WriteAnswer>(0);
  const std::optional<KeyOutcome> taken =
      answered && written.rows() == 1 ? parse_key_outcome(row.outcome()) : std::nullopt;
  const std::int64_t status = taken ? row.status() : 0;  // null (0) for mismatch and in_progress
  // A write that ran and succeeded has committed outbox rows (or, rarely, changed nothing).
  const bool outbox_rows = taken == KeyOutcome::run && status == 200;
  turn.ended(answered, outbox_rows);
  if (!answered) {  // 503 or 500, as for reads
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
  answer(ctx, status, row);
  co_return Finished::answered;
}

// Builds the write's unit for the store's pod with `build(unit, pod)` (which returns the
// write's turn of the dispatchers' wake-up), runs it and answers. A write its pod
// fenced (docs/DECISIONS.md, "Pods": a move's cut-over, or the store has left that pod)
// ran nothing, so it is tried again, with or without an Idempotency-Key: the store is
// forgotten by every core of this node and the key looked up again in the directory, so
// the next try goes to the store's pod as the directory has it then. Past
// kFencedRetryFor it is answered 503 with Retry-After.
template <class Build>
runtime::task<void> write_on_pod(Context& ctx, const WriteRequest& write, Build build) {
  const auto give_up_at = runtime::Clock::now() + kFencedRetryFor;
  for (bool first = true;; first = false) {
    const PodLookup pod = co_await ctx.services.pods.find(ctx.caller.pod);
    if (!pod.ok()) {
      fail_unavailable(ctx);
      co_return;
    }
    db::Unit unit;
    const WakeTurn turn = build(unit, pod.pod());
    const Finished finished = co_await finish(ctx, unit, pod.pod(), turn, write.keyed());
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
    // Whatever kept it from being looked up again, the write is answered as one its store
    // could not take: 503.
    if (co_await ctx.services.authenticator.relocate(write.authorization, ctx.caller) != auth::AuthStatus::ok) {
      fail_unavailable(ctx);
      co_return;
    }
  }
}

// A rejection is answered, and stored under the key when the request has a valid one
// (the spec keeps every 4xx); the key is bound to the raw body then (read_write).
runtime::task<void> reject(Context& ctx, const WriteRequest& write) {
  const Checked& rejection = write.call.verdict();
  if (!write.keyed()) {
    fail(ctx, rejection);
    co_return;
  }
  const ErrorInfo& info = error_info(rejection.code());
  const std::string body = stored_error(info, rejection);
  co_await write_on_pod(ctx, write, [&](db::Unit& unit, Pod&) {
    unit.add(kStoreRejection, {ctx.caller.store(), write.key.text, std::string_view(write.key.fingerprint),
                               info.status, std::string_view(body)});
    return WakeTurn();  // it queues nothing to announce
  });
}

// The endpoint's statement with its own parameters (WriteCall), then the key, the
// fingerprint and the trace id; after the NOTIFY when the write's `turn` carries it.
// First, so that a failed NOTIFY fails the write too (the rest of the transaction is
// skipped) rather than roll back a write whose answer came already.
void add_call(db::Unit& unit, const WakeTurn& turn, const WriteCall& call, db::Param key, db::Param fingerprint,
              std::string_view trace) {
  std::array<db::Param, kMaxWriteParams + 3> params;
  const std::span<const db::Param> own = call.params();
  std::copy(own.begin(), own.end(), params.begin());
  params[own.size()] = key;
  params[own.size() + 1] = fingerprint;
  params[own.size() + 2] = trace;
  unit.add(turn.notify(), call.statement(), std::span<const db::Param>(params).first(own.size() + 3));
}

}  // namespace

runtime::task<void> run_write(Context& ctx, WriteEndpoint endpoint) {
  // What the request is read into, owned by this frame: valid across the co_awaits below.
  WriteBuffers buffers;
  const WriteRequest write = read_write(ctx, endpoint, buffers);
  if (!write.call.verdict().ok()) {
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
  co_await write_on_pod(ctx, write, [&](db::Unit& unit, Pod& pod) {
    const WakeTurn turn = pod.dispatcher_wake().take_turn();
    add_call(unit, turn, write.call, key_param, fingerprint_param, ctx.req.trace_id);
    return turn;
  });
}

}  // namespace storeapi::api
