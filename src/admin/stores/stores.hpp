#pragma once
// Stores: creation (with the owner's staff record), plan and rate-limit changes.
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <optional>
#include <string>

namespace storeapi::admin {

struct NewStore {
  std::string name;
  std::string slug;
  std::string currency;
  std::string plan;
  std::string owner_email;
  std::string locale = "en";
  std::optional<std::string> url;  // default https://<slug>.example.com
  std::string pod = "main";         // where its data lives (admin/pods/pods.hpp)
};

// Validates, inserts the store and its owner (write access on every resource) and
// returns the store id. Throws UsageError on malformed values and CommandError when the
// slug is taken or the pod unknown. The pod's copies: admin/pods/store_copies.hpp.
std::string create_store(pqxx::work& work, const NewStore& store);

// CommandError when there is no such store (a malformed id included). `for_update`
// locks the store row for the rest of the transaction, serialising changes to it.
void require_store(pqxx::work& work, const std::string& store_id, bool for_update = false);

void set_plan(pqxx::work& work, const std::string& store_id, const std::string& plan);

// rpm nullopt = back to the plan's rate. Sends the store invalidation.
void set_rate_limit(pqxx::work& work, const std::string& store_id, std::optional<long> rpm);

// Tells every server, once the transaction commits, that the store changed outside the
// API (plan, rate, data): they reload its keys and record its write position anew.
void notify_store_changed(pqxx::work& work, const std::string& store_id);

// The store as the admin tool prints it.
void write_store(JsonWriter& json, pqxx::work& work, const std::string& store_id);

}  // namespace storeapi::admin
