#include "admin/base/pod_connection.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "common/uuid.hpp"

#include <cstdlib>

namespace storeapi::admin {
namespace {

PodConnection open(pqxx::connection_base& directory, const std::string& name, const std::optional<std::string>& url) {
  if (!url) return PodConnection(directory);
  try {
    return PodConnection(name, connect(as_user(*url, directory.username())));
  } catch (const pqxx::broken_connection& e) {
    throw CommandError("cannot reach pod '" + name + "': " + e.what());
  }
}

// Whether the database has pods (sql/034_pods.sql). One migrated before them, as the tool
// may meet before `migrate`, holds every store's data itself and fences nothing.
bool has_pods(pqxx::transaction_base& work) {
  return work.exec1("select to_regclass('store_fences') is not null as has_pods")["has_pods"].as<bool>();
}

}  // namespace

std::string mover_user(const std::optional<std::string>& flag) {
  if (flag && !flag->empty()) return *flag;
  if (const char* env = std::getenv("STOREAPI_MOVER_USER"); env && *env) return env;
  throw UsageError("no mover: pass --mover-user or set STOREAPI_MOVER_USER (the role that moves stores between "
                   "pods, docs/DEPLOY.md \"Database roles\")");
}

std::string pod_conninfo_as(pqxx::transaction_base& directory, const std::string& directory_url,
                            const std::string& pod, const std::string& user) {
  return as_user(pod_url(directory, pod).value_or(directory_url), user);
}

Pod open_pod(pqxx::connection& directory, const Mover& mover, const std::string& name) {
  std::string conninfo;
  {
    pqxx::nontransaction work(directory);
    conninfo = pod_conninfo_as(work, mover.directory_url, name, mover.user);
  }
  return {name, conninfo, connect(conninfo)};
}

std::vector<std::string> pod_names(pqxx::connection_base& directory) {
  pqxx::nontransaction work(directory);
  std::vector<std::string> names;
  if (!has_pods(work)) return {"main"};
  for (const auto& row : work.exec("select name from pods order by name <> 'main', name"))
    names.emplace_back(row["name"].c_str());
  return names;
}

std::optional<std::string> pod_url(pqxx::transaction_base& directory, const std::string& pod) {
  auto rows = directory.exec_params("select url from pods where name = $1", pod);
  if (rows.empty()) throw CommandError("no pod named '" + pod + "' (storeapi-admin pod list shows them)");
  return optional_text(rows[0]["url"]);
}

PodConnection connect_to_pod(pqxx::transaction_base& directory, const std::string& pod) {
  return open(directory.conn(), pod, pod_url(directory, pod));
}

PodConnection connect_to_pod(pqxx::connection& directory, const std::string& pod) {
  pqxx::nontransaction work(directory);
  return connect_to_pod(work, pod);
}

PodConnection connect_to_store_pod(pqxx::connection& directory, const std::string& store_id) {
  if (!is_uuid(store_id)) return PodConnection(directory);
  pqxx::result rows;
  {
    pqxx::nontransaction work(directory);
    if (!has_pods(work)) return PodConnection(directory);
    rows = work.exec_params("select p.name, p.url from stores s join pods p on p.name = s.pod where s.id = $1",
                            store_id);
  }
  if (rows.empty()) return PodConnection(directory);
  return open(directory, rows[0]["name"].c_str(), optional_text(rows[0]["url"]));
}

PodConnection connect_to_pod_holding(pqxx::connection& directory,
                                     const std::function<std::optional<std::string>(pqxx::work&)>& store_of) {
  for (const std::string& name : pod_names(directory)) {
    PodConnection pod = connect_to_pod(directory, name);
    std::optional<std::string> store;
    {
      pqxx::work work(pod.get());
      store = store_of(work);
      work.commit();
    }
    if (store) return connect_to_store_pod(directory, *store);
  }
  return PodConnection(directory);
}

void claim_store_write(pqxx::work& pod_work, const std::string& store_id) {
  if (!has_pods(pod_work)) return;
  auto claim = pod_work.exec_params1("select (api.claim_idempotency_key($1, null, null)).outcome as outcome", store_id);
  if (std::string_view(claim["outcome"].c_str()) == "fenced")
    throw CommandError("store '" + store_id + "' is being moved to another pod (its writes are fenced here); "
                       "run the command again");
}

}  // namespace storeapi::admin
