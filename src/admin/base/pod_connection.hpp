#pragma once
// Reaching the pod that holds a store's data (docs/DECISIONS.md, "Pods"). The directory
// (the database the tool connects to) says where each store is; a command on a store's
// data runs on that pod, and one on directory data (stores, staff, keys) stays on the
// directory. The pod `main` is the directory's own database.
#include <pqxx/pqxx>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::admin {

// A connection to one pod: its own, or the directory's when the pod is main.
class PodConnection {
 public:
  explicit PodConnection(pqxx::connection_base& directory) : conn_(&directory) {}
  PodConnection(std::string name, std::unique_ptr<pqxx::connection> own)
      : name_(std::move(name)), own_(std::move(own)), conn_(own_.get()) {}

  pqxx::connection_base& get() { return *conn_; }
  const std::string& name() const { return name_; }
  bool is_directory() const { return !own_; }

 private:
  std::string name_ = "main";
  std::unique_ptr<pqxx::connection> own_;
  pqxx::connection_base* conn_;
};

// The role `store move` and `store restore` reach the pods as (docs/DEPLOY.md "Database
// roles"): --mover-user if given, else STOREAPI_MOVER_USER; UsageError when neither is
// set. It is given to the tool, never read from the database: the pods table holds the
// API nodes' URLs, whose role may do no more than the API does.
std::string mover_user(const std::optional<std::string>& flag);

// The pod's connection string as `user`, with no password (admin/base/database.hpp, as_user):
// the pod's URL from the directory, or `directory_url` for main. What the mover connects
// with, and what a subscription on another pod names (the password is then read from the
// password file of the server that connects).
std::string pod_conninfo_as(pqxx::transaction_base& directory, const std::string& directory_url,
                            const std::string& pod, const std::string& user);

// Who moves or restores a store: the mover's role (mover_user), and the directory's
// connection string, main's address (a target's subscription connects to it, as the mover
// and with no password, when the store leaves main).
struct Mover {
  std::string user;
  std::string directory_url;
};

// A pod on a connection of its own as the mover, main's too, with the connection string it
// was opened with: what a store move or restore works on (the directory's connection stays
// the tool's, for the record, the lock and the flip).
struct Pod {
  std::string name;
  std::string conninfo;  // as the mover, with no password: what a target's subscription names
  std::unique_ptr<pqxx::connection> conn;
};
Pod open_pod(pqxx::connection& directory, const Mover& mover, const std::string& name);

// The pods' names, main first.
std::vector<std::string> pod_names(pqxx::connection_base& directory);

// The pod's URL (nullopt for main, the directory itself); CommandError when the
// directory has no pod by that name.
std::optional<std::string> pod_url(pqxx::transaction_base& directory, const std::string& pod);

// The pod named `pod`, reached at its URL as the role the tool connected to the directory
// with (its password from the password file); CommandError when the directory has none
// by that name or it cannot be reached. Looked up in the caller's transaction of the directory, or in one
// of its own.
PodConnection connect_to_pod(pqxx::transaction_base& directory, const std::string& pod);
PodConnection connect_to_pod(pqxx::connection& directory, const std::string& pod);

// The pod the directory places the store on. An unknown store (a malformed id included)
// gets the directory, where the command then reports it as it always has.
PodConnection connect_to_store_pod(pqxx::connection& directory, const std::string& store_id);

// For a command that names a row of store data but not its store (a webhook endpoint, an
// event): `store_of` is asked on each pod, main first, for the store holding the row, and
// the answer's store is reached through the directory (a store being moved has its rows
// on two pods; the directory says which one serves it). No pod holds it: the directory.
PodConnection connect_to_pod_holding(pqxx::connection& directory,
                                     const std::function<std::optional<std::string>(pqxx::work&)>& store_of);

// Holds off a move's cut-over while the caller's transaction writes the store's data on
// its pod, as every API write does (api.claim_idempotency_key takes the store's fence
// lock until the commit). CommandError when the pod has fenced the store's writes: it is
// being moved, or has left this pod; run the command again.
void claim_store_write(pqxx::work& pod_work, const std::string& store_id);

}  // namespace storeapi::admin
