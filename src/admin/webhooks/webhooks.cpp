#include "admin/webhooks/webhooks.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/stores/stores.hpp"
#include "admin/base/validate.hpp"
#include "admin/webhooks/destination.hpp"
#include "common/crypto.hpp"
#include "common/uuid.hpp"

#include <algorithm>
#include <array>
#include <sstream>

namespace storeapi::admin {
namespace {

// The event types the write endpoints emit (docs/DESIGN.md §2 "Events and notifications").
constexpr std::array<std::string_view, 4> kEventTypes = {
    "order.fulfillment_updated", "booking.accepted", "booking.canceled", "product.updated"};

constexpr const char* kWebhookColumns =
    "id, store_id, url, events, enabled, disabled_at, disabled_reason, failing_since,"
    " previous_secret_expires_at, created_at, updated_at";

std::string new_secret() {
  std::array<std::uint8_t, 24> bytes{};
  crypto::random_bytes(bytes);
  return "whsec_" + crypto::base64(crypto::as_chars(bytes));
}

std::vector<std::string> parse_event_types(const std::string& list) {
  std::vector<std::string> types;
  std::stringstream in(list);
  for (std::string type; std::getline(in, type, ',');) {
    if (std::find(kEventTypes.begin(), kEventTypes.end(), type) == kEventTypes.end()) {
      std::string known;
      for (auto t : kEventTypes) known += (known.empty() ? "" : ", ") + std::string(t);
      throw UsageError("--events: unknown event type '" + type + "' (known: " + known + ")");
    }
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  if (types.empty() || list.back() == ',') throw UsageError("--events must list event types, got '" + list + "'");
  return types;
}

void write_webhook_row(JsonWriter& json, const pqxx::row& r, const std::string& secret) {
  json.begin_object()
      .field("object", "webhook_endpoint")
      .field("id", r["id"].c_str())
      .field("store_id", r["store_id"].c_str())
      .field("url", r["url"].c_str());
  if (r["events"].is_null()) {
    json.key("events").null();
  } else {
    json.key("events").begin_array();
    for (const auto& type : text_array(r["events"])) json.value(type);
    json.end_array();
  }
  json.field("enabled", r["enabled"].as<bool>())
      .field("disabled_at", timestamp(r["disabled_at"]))
      .field("disabled_reason", optional_text(r["disabled_reason"]))
      .field("failing_since", timestamp(r["failing_since"]))
      .field("previous_secret_expires_at", timestamp(r["previous_secret_expires_at"]))
      .field("created_at", timestamp(r["created_at"]))
      .field("updated_at", timestamp(r["updated_at"]));
  if (!secret.empty()) json.field("secret", secret);
  json.end_object();
}

// The endpoint's store and whether it is enabled, locking its row; CommandError if unknown.
std::pair<std::string, bool> lock_webhook(pqxx::work& work, const std::string& webhook_id) {
  std::string unknown = "no webhook endpoint with id '" + webhook_id + "'";
  if (!is_uuid(webhook_id)) throw CommandError(unknown);
  auto rows = work.exec_params("select store_id, enabled from webhook_endpoints where id = $1 for update", webhook_id);
  if (rows.empty()) throw CommandError(unknown);
  claim_store_write(work, rows[0]["store_id"].c_str());
  return {rows[0]["store_id"].c_str(), rows[0]["enabled"].as<bool>()};
}

}  // namespace

std::optional<std::string> webhook_store(pqxx::work& work, const std::string& webhook_id) {
  if (!is_uuid(webhook_id)) return std::nullopt;
  auto rows = work.exec_params("select store_id from webhook_endpoints where id = $1", webhook_id);
  if (rows.empty()) return std::nullopt;
  return rows[0]["store_id"].c_str();
}

NewWebhook add_webhook(pqxx::work& work, const std::string& store_id, const std::string& url,
                       const std::optional<std::string>& events, const net::DestinationPolicy& destinations) {
  check_url(url, "url");
  check_webhook_destination(url, destinations);
  std::optional<std::string> types;
  if (events) types = text_array_literal(parse_event_types(*events));
  require_store(work, store_id);
  claim_store_write(work, store_id);
  std::string secret = new_secret();
  auto row = work.exec_params1(
      "insert into webhook_endpoints (store_id, url, secret, events) values ($1, $2, $3, $4::text[])"
      " returning id",
      store_id, url, secret, types);
  return {row["id"].c_str(), secret};
}

void write_webhook(JsonWriter& json, pqxx::work& work, const std::string& webhook_id, const std::string& secret) {
  auto row = work.exec_params1(std::string("select ") + kWebhookColumns + " from webhook_endpoints where id = $1",
                               webhook_id);
  write_webhook_row(json, row, secret);
}

void write_webhook_list(JsonWriter& json, pqxx::work& work, const std::string& store_id) {
  require_store(work, store_id);
  auto rows = work.exec_params(std::string("select ") + kWebhookColumns +
                                   " from webhook_endpoints where store_id = $1 order by created_at, id",
                               store_id);
  json.begin_object().field("object", "list").key("data").begin_array();
  for (const auto& row : rows) write_webhook_row(json, row, "");
  json.end_array().end_object();
}

void disable_webhook(pqxx::work& work, const std::string& webhook_id) {
  auto [store_id, enabled] = lock_webhook(work, webhook_id);
  if (!enabled) throw CommandError("webhook endpoint '" + webhook_id + "' is already disabled");
  work.exec_params("select api.disable_webhook_endpoint($1, $2, 'manual')", store_id, webhook_id);
}

void enable_webhook(pqxx::work& work, const std::string& webhook_id) {
  auto [store_id, enabled] = lock_webhook(work, webhook_id);
  if (enabled) throw CommandError("webhook endpoint '" + webhook_id + "' is not disabled");
  work.exec_params(
      "update webhook_endpoints set enabled = true, disabled_at = null, disabled_reason = null,"
      " failing_since = null, updated_at = api.now_ms() where store_id = $1 and id = $2",
      store_id, webhook_id);
}

std::string rotate_webhook_secret(pqxx::work& work, const std::string& webhook_id) {
  std::string store_id = lock_webhook(work, webhook_id).first;
  std::string secret = new_secret();
  work.exec_params(
      "update webhook_endpoints set previous_secret = secret,"
      " previous_secret_expires_at = api.now_ms() + interval '24 hours', secret = $3,"
      " updated_at = api.now_ms() where store_id = $1 and id = $2",
      store_id, webhook_id, secret);
  return secret;
}

}  // namespace storeapi::admin
