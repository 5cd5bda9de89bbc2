#include "api/writes/idempotency.hpp"

#include "metrics/registry.hpp"

#include <algorithm>
#include <chrono>

#include "common/crypto.hpp"
#include "runtime/io.hpp"

namespace storeapi::api {
namespace {

constexpr std::size_t kMaxKeyLength = 255;

// Keys taken more than 24 h ago are deleted in batches of this size, so no single
// statement holds many row locks or runs long.
constexpr int kPurgeBatch = 1000;
constexpr auto kPurgeInterval = std::chrono::minutes(5);

}  // namespace

bool is_valid_idempotency_key(std::string_view key) {
  return !key.empty() && key.size() <= kMaxKeyLength &&
         std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

IdempotencyKey read_idempotency_key(const http::Request& req, const std::optional<ValidatedBody>& body) {
  bool present = false;
  std::string_view value = req.header("idempotency-key", &present);
  if (!present) return {};
  if (!is_valid_idempotency_key(value)) return {IdempotencyKey::State::invalid, {}, {}};
  return {IdempotencyKey::State::valid, value, fingerprint(req, body)};
}

std::string fingerprint(const http::Request& req, const std::optional<ValidatedBody>& body) {
  std::string text;
  text.append(req.method_text).append(" ").append(req.path).append("\n");
  if (!body) {
    // "raw" is no field name, so this never equals a validated body's text.
    text.append("raw\n").append(req.body);
    return crypto::sha256_hex(text);
  }
  for (std::size_t i = 0; i < body->fields.size(); ++i) {
    const json::Field& field = body->fields[i];
    const json::FieldValue& v = body->values[i];
    text.append(field.name).append("=");
    if (!v.present) {
      text.append("-");
    } else if (v.is_null) {
      text.append("n");
    } else if (field.type == json::FieldType::int32 || field.type == json::FieldType::int64) {
      text.append("i").append(std::to_string(v.number));
    } else {
      text.append("s").append(std::to_string(v.text.size())).append(":").append(v.text);
    }
    text.append("\n");
  }
  return crypto::sha256_hex(text);
}

std::optional<KeyOutcome> parse_key_outcome(std::string_view text) {
  if (text == "run") return KeyOutcome::run;
  if (text == "replay") return KeyOutcome::replay;
  if (text == "mismatch") return KeyOutcome::mismatch;
  if (text == "in_progress") return KeyOutcome::in_progress;
  if (text == "fenced") return KeyOutcome::fenced;
  return std::nullopt;
}

namespace {
constexpr db::Column kPurgeParams[] = {{"limit", db::Type::int4}};
}  // namespace

const db::Statement kPurgeIdempotencyKeys{"idempotency_purge", "select api.purge_idempotency_keys($1)", kPurgeParams,
                                          PurgedKeys::columns};

namespace {

runtime::task<void> purge_pod(db::Pool& pod) {
  for (;;) {
    db::Unit unit;
    unit.add(kPurgeIdempotencyKeys, {kPurgeBatch});
    if (co_await pod.run(unit) != db::Outcome::done || !unit.result(0).ok()) co_return;  // next round
    if (unit.result(0).row<PurgedKeys>(0).purge_idempotency_keys() < kPurgeBatch) co_return;
  }
}

}  // namespace

runtime::task<void> purge_idempotency_keys(Pods& pods) {
  for (;;) {
    co_await runtime::sleep_for(kPurgeInterval);
    co_await pods.reload();  // a pod no request brought to this core has keys too
    for (const std::string& name : pods.book().names())
      if (const PodLookup pod = co_await pods.find(name); pod.ok()) co_await purge_pod(pod.pod().primary());
  }
}

namespace {

// By KeyOutcome, then "released"; looked up once per thread (the lookup takes the
// registry's lock).
metrics::Counter& key_outcome_counter(std::size_t index) {
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
  return *counters[index];
}

}  // namespace

static_assert(static_cast<int>(KeyOutcome::fenced) == 4, "labels above follow KeyOutcome's order");
void count_key_outcome(KeyOutcome outcome) { key_outcome_counter(static_cast<std::size_t>(outcome)).inc(); }
void count_key_released() { key_outcome_counter(5).inc(); }

}  // namespace storeapi::api
