#include "api/writes/idempotency.hpp"

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

IdempotencyKey read_idempotency_key(std::optional<std::string_view> header, const http::Request& req,
                                    const std::optional<ValidatedBody>& body) {
  if (!header) return {};
  if (!is_valid_idempotency_key(*header)) return {IdempotencyKey::State::invalid, {}, {}};
  return {IdempotencyKey::State::valid, *header, fingerprint(req, body)};
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
      if (Pod* pod = co_await pods.find(name)) co_await purge_pod(pod->primary());
  }
}

}  // namespace storeapi::api
