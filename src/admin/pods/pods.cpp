#include "admin/pods/pods.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/migrations/migrations.hpp"
#include "admin/move/checks.hpp"
#include "admin/base/validate.hpp"

#include <optional>

namespace storeapi::admin {
namespace {

// What makes a database the one it is: its cluster's system identifier and its name.
std::string identity(pqxx::transaction_base& work) {
  return work.exec1("select (select system_identifier from pg_control_system())::text || '/' || current_database()"
                    " as identity")["identity"]
      .c_str();
}

// The pod's fields, for `pod add` and `pod list` alike (one row of kPodColumns).
constexpr const char* kPodColumns =
    "p.name, p.url, p.replica_urls,"
    " (select count(*) from stores s where s.pod = p.name) as store_count,"
    " (select coalesce(array_agg(s.id::text order by s.slug), '{}') from stores s where s.pod = p.name) as store_ids,"
    " (select coalesce(array_agg(s.slug::text order by s.slug), '{}') from stores s where s.pod = p.name)"
    "   as store_slugs,"
    " p.created_at";

void write_pod_fields(JsonWriter& json, const pqxx::row& r) {
  json.field("object", "pod").field("name", r["name"].c_str()).field("url", optional_text(r["url"]));
  json.key("replica_urls").begin_array();
  for (const auto& url : text_array(r["replica_urls"])) json.value(url);
  json.end_array().field("store_count", r["store_count"].as<std::int64_t>());
  // Written here rather than rendered by jsonb, whose text has blanks after ':' and ','
  // unlike every other line the tool prints.
  const std::vector<std::string> ids = text_array(r["store_ids"]), slugs = text_array(r["store_slugs"]);
  json.key("stores").begin_array();
  for (std::size_t i = 0; i < ids.size() && i < slugs.size(); ++i)
    json.begin_object().field("id", ids[i]).field("slug", slugs[i]).end_object();
  json.end_array().field("created_at", timestamp(r["created_at"]));
}

struct PodSettings {
  std::string wal_level;
  std::int64_t max_replication_slots = 0;
  std::int64_t max_wal_senders = 0;
};

}  // namespace

std::vector<std::string> parse_replica_urls(const std::string& list) {
  std::vector<std::string> urls;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string url = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (url.empty()) throw UsageError("--replica-urls must list URLs separated by single commas");
    refuse_password(url, "--replica-urls");
    urls.push_back(url);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return urls;
}

void add_pod(JsonWriter& json, pqxx::connection& directory, const NewPod& pod, const Retention& retention) {
  check_matches(pod.name, "[a-z0-9]+(-[a-z0-9]+)*",
                "--name must be lower-case letters and digits separated by single dashes, got '" + pod.name + "'");
  if (pod.name == "main") throw CommandError("pod 'main' is the directory's own database and is always there");
  refuse_password(pod.url, "--url");
  std::string directory_identity;
  {
    pqxx::nontransaction work(directory);
    auto known = work.exec_params("select name, url from pods where name = $1 or url = $2", pod.name, pod.url);
    for (const auto& row : known) {
      if (pod.name == row["name"].c_str() && !row["url"].is_null() && pod.url != row["url"].c_str())
        throw CommandError("pod '" + pod.name + "' exists with another URL (" + row["url"].c_str() + ")");
      if (pod.name != row["name"].c_str())
        throw CommandError(std::string("that URL is pod '") + row["name"].c_str() + "' already");
    }
    directory_identity = identity(work);
  }

  // As the tool's own role, as every pod command (admin/base/pod_connection.hpp): --url is the
  // API nodes' address of the pod, and their role may not migrate.
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = connect(as_user(pod.url, directory.username()));
  } catch (const pqxx::broken_connection& e) {
    throw CommandError("cannot reach pod '" + pod.name + "': " + e.what());
  }
  PodSettings settings;
  {
    pqxx::nontransaction work(*conn);
    if (identity(work) == directory_identity)
      throw CommandError("--url names the directory's own database, which is pod 'main' already");
    if (work.exec1("select pg_is_in_recovery() as standby")["standby"].as<bool>())
      throw CommandError("--url names a standby; a pod's URL is its primary (standbys go in --replica-urls)");
    auto r = work.exec1(
        "select current_setting('wal_level') as wal_level,"
        " current_setting('max_replication_slots')::bigint as max_replication_slots,"
        " current_setting('max_wal_senders')::bigint as max_wal_senders");
    settings = {r["wal_level"].c_str(), r["max_replication_slots"].as<std::int64_t>(),
                r["max_wal_senders"].as<std::int64_t>()};
  }
  MigrationReport migrations = migrate(*conn, retention);

  pqxx::work work(directory);
  auto created = work.exec_params1(
      "insert into pods (name, url, replica_urls) values ($1, $2, $3::text[])"
      " on conflict (name) do update set replica_urls = excluded.replica_urls"
      " returning xmax = 0 as created",
      pod.name, pod.url, text_array_literal(pod.replica_urls));
  work.exec_params("select pg_notify(api.config('invalidate_channel'), 'pod:' || $1)", pod.name);
  auto row = work.exec_params1(std::string("select ") + kPodColumns + " from pods p where p.name = $1", pod.name);
  json.begin_object();
  write_pod_fields(json, row);
  json.field("created", created["created"].as<bool>());
  json.key("migrations").begin_object();
  write_migrations(json, migrations);
  json.end_object();
  // A move out of this pod publishes the store's tables: logical decoding, a slot and a
  // sender for each move running at once (docs/DEPLOY.md, "Pods").
  const bool can_be_moved_from =
      settings.wal_level == "logical" && settings.max_replication_slots > 0 && settings.max_wal_senders > 0;
  json.field("wal_level", settings.wal_level)
      .field("max_replication_slots", settings.max_replication_slots)
      .field("max_wal_senders", settings.max_wal_senders)
      .field("can_be_moved_from", can_be_moved_from);
  // What to run when it cannot: the field alone named no fix.
  std::optional<std::string> hint;
  if (settings.wal_level != "logical") hint = "wal_level = " + settings.wal_level + "; " + kLogicalWalFix;
  json.field("hint", hint).end_object();
  work.commit();
}

void write_pod_list(JsonWriter& json, pqxx::work& directory) {
  auto rows = directory.exec(std::string("select ") + kPodColumns + " from pods p order by p.name <> 'main', p.name");
  json.begin_object().field("object", "list").key("data").begin_array();
  for (const auto& row : rows) {
    json.begin_object();
    write_pod_fields(json, row);
    json.end_object();
  }
  json.end_array().end_object();
}

}  // namespace storeapi::admin
