#pragma once
// Webhook endpoints. The signing secret is stored as is: the dispatcher signs with it.
#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

struct NewWebhook {
  std::string id;
  std::string secret;  // whsec_ + base64 of 24 random bytes
};

// UsageError unless `url` is an http(s) URL; CommandError for an unknown store.
NewWebhook add_webhook(pqxx::work& work, const std::string& store_id, const std::string& url);

}  // namespace storeapi::admin
