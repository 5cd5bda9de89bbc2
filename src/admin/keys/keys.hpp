#pragma once
// API keys: creation (shown once), revocation and listing. Only the SHA-256 of a key
// is stored.
#include "admin/stores/access.hpp"
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

struct NewKey {
  std::string store_id;
  std::string name;
  std::string access = "full";     // read | full | custom
  std::string scopes;              // custom only: "orders:read,products:write"
  std::string expires = "never";   // never | 30d | 90d | 1y | RFC 3339
  std::string by_email;            // the creator; empty = the owner
};

struct CreatedKey {
  std::string id;
  std::string key;  // sk_live_ + 32 characters; exists only here
};

// Checks the plan (pro or advanced), the plan's limit of active keys and that the creator
// holds every scope granted; stores the key, tells the servers (NOTIFY) and queues the
// owner's notification. Throws UsageError / CommandError and changes nothing on failure.
CreatedKey create_key(pqxx::work& work, const NewKey& request);

// Revokes an active key, tells the servers and queues the owner's notification.
// CommandError when the key is unknown or already revoked.
void revoke_key(pqxx::work& work, const std::string& key_id);

// The key as the admin tool prints it (never the hash); `full_key` is added when given.
void write_key(JsonWriter& json, pqxx::work& work, const std::string& key_id,
               const std::string& full_key = "");

// {"object":"list","data":[keys newest first]}
void write_key_list(JsonWriter& json, pqxx::work& work, const std::string& store_id);

}  // namespace storeapi::admin
