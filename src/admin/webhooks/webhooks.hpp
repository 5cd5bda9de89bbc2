#pragma once
// Webhook endpoints: adding (the signing secret is shown once), listing, disabling and
// enabling, rotating the secret. Secrets are stored as they are: the dispatcher signs
// with them.
#include "admin/base/json.hpp"
#include "common/ip_networks.hpp"

#include <pqxx/pqxx>

#include <optional>
#include <string>

namespace storeapi::admin {

struct NewWebhook {
  std::string id;
  std::string secret;  // whsec_ + base64 of 24 random bytes
};

// `events`: comma-separated event types the endpoint receives; nullopt = all of them.
// UsageError unless `url` is an http(s) URL and every type is known; CommandError for an
// unknown store or a destination `destinations` refuses (admin/webhooks/destination.hpp).
NewWebhook add_webhook(pqxx::work& work, const std::string& store_id, const std::string& url,
                       const std::optional<std::string>& events, const net::DestinationPolicy& destinations);

// The store of the endpoint; nullopt when this database has no such endpoint.
std::optional<std::string> webhook_store(pqxx::work& work, const std::string& webhook_id);

// The endpoint as the admin tool prints it; `secret` is added when given (add, rotate).
void write_webhook(JsonWriter& json, pqxx::work& work, const std::string& webhook_id,
                   const std::string& secret = "");

// {"object":"list","data":[endpoints, oldest first]}
void write_webhook_list(JsonWriter& json, pqxx::work& work, const std::string& store_id);

// The endpoint gets nothing more; its pending deliveries fail. CommandError when it is
// unknown or already disabled.
void disable_webhook(pqxx::work& work, const std::string& webhook_id);

// Deliveries start again with the next event (missed ones: `event redeliver`).
// CommandError when it is unknown or not disabled.
void enable_webhook(pqxx::work& work, const std::string& webhook_id);

// A new secret, returned once. The old one keeps signing too (a second signature) for
// 24 hours, so receivers can switch without losing a delivery.
std::string rotate_webhook_secret(pqxx::work& work, const std::string& webhook_id);

}  // namespace storeapi::admin
