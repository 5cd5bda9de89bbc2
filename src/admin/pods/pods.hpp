#pragma once
// Pods (docs/DECISIONS.md, "Pods"): registering a PostgreSQL cluster as a pod, and listing
// the pods with the stores placed on each.
#include "admin/base/json.hpp"
#include "common/retention.hpp"

#include <pqxx/pqxx>

#include <string>
#include <vector>

namespace storeapi::admin {

struct NewPod {
  std::string name;
  std::string url;                        // its primary (a multi-host URL for failover)
  std::vector<std::string> replica_urls;  // its hot standbys
};

// The comma-separated --replica-urls, each refused when it carries a password.
std::vector<std::string> parse_replica_urls(const std::string& list);

// Refuses a password in any URL (UsageError), connects to the pod, checks that it is a
// primary and not the directory itself, applies the migrations to it, registers it in
// the directory (again under the same name and URL: its standbys are replaced; another
// URL: CommandError) and announces it (`pod:<name>` on the invalidation channel). Prints
// the pod, what the migrations applied, and whether it can be the source of a move
// (wal_level logical, replication slots and senders to spare).
void add_pod(JsonWriter& json, pqxx::connection& directory, const NewPod& pod, const Retention& retention);

// {"object":"list","data":[pods, main first, each with its stores (id, slug) and their count]}
void write_pod_list(JsonWriter& json, pqxx::work& directory);

}  // namespace storeapi::admin
