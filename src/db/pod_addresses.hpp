#pragma once
// Where each pod is (docs/DECISIONS.md, "Pods"): the directory's `pods` table as this
// process last read it, shared by its cores (one reads it, every core creates its pools
// from it), so behind a mutex; read only when a core meets a pod it has no pool for, and
// on the invalidation channel's `pod:<name>` notice. The URLs carry no password (libpq
// finds it in PGPASSFILE or ~/.pgpass), like the settings' URLs.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/result.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"

namespace storeapi::db {

// The pod `main`: the directory's own database, which has no URL in the table.
inline constexpr std::string_view kMainPod = "main";

struct PodAddress {
  std::string url;  // its primary (a multi-host URL for failover); empty for main
  std::vector<std::string> replica_urls;  // its hot standbys, in the table's order
};

// The pods with their standbys, one row per standby (replica_url null: none), ordered by
// pod and then as the table lists them.
#define STOREAPI_POD_ADDRESS_COLUMNS(X) X(name, text) X(url, text) X(replica_url, text)
STOREAPI_DB_ROW(PodAddressRow, STOREAPI_POD_ADDRESS_COLUMNS);
extern const Statement kPodAddresses;

class PodAddressBook {
 public:
  // The pod's address as last read; nullopt when it was not in the table then.
  std::optional<PodAddress> find(std::string_view name) const;
  // Every pod's name as last read (`main` always).
  std::vector<std::string> names() const;
  // Replaces what the book holds with kPodAddresses' result. False (and nothing changed)
  // when it is not a successful result of that statement.
  bool replace(const Result& pods);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, PodAddress, std::less<>> pods_{{std::string(kMainPod), PodAddress{}}};
};

}  // namespace storeapi::db
