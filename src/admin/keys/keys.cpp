#include "admin/keys/keys.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/keys/expiry.hpp"
#include "admin/stores/staff.hpp"
#include "admin/stores/stores.hpp"
#include "auth/api_key.hpp"
#include "common/crypto.hpp"
#include "common/uuid.hpp"

namespace storeapi::admin {
namespace {

using auth::kDisplayPrefixLength;
using auth::kKeySecretLength;
using auth::kLiveKeyPrefix;

constexpr const char* kKeyColumns =
    "k.id, k.store_id, k.name, k.prefix, k.access, k.scopes, k.expires_at, k.revoked_at,"
    " k.created_by, k.created_at,"
    " case when k.revoked_at is not null then 'revoked'"
    "      when k.expires_at <= now() then 'expired' else 'active' end as status";

void write_key_row(JsonWriter& json, const pqxx::row& r, const std::string& full_key) {
  json.begin_object()
      .field("object", "api_key")
      .field("id", r["id"].c_str())
      .field("store_id", r["store_id"].c_str())
      .field("name", r["name"].c_str())
      .field("prefix", r["prefix"].c_str())
      .field("access", r["access"].c_str());
  json.key("scopes").begin_array();
  for (const auto& scope : text_array(r["scopes"])) json.value(scope);
  json.end_array()
      .field("expires_at", timestamp(r["expires_at"]))
      .field("revoked_at", timestamp(r["revoked_at"]))
      .field("created_by", r["created_by"].c_str())
      .field("created_at", timestamp(r["created_at"]))
      .field("status", r["status"].c_str());
  if (!full_key.empty()) json.field("key", full_key);
  json.end_object();
}

// Both changes reach the servers at once (their key cache drops the hash) and the owner
// is e-mailed through the notification outbox, whose dispatchers are woken in the same
// transaction (a rare command can afford the NOTIFY lock), all in the caller's transaction.
void announce_key_change(pqxx::work& work, const std::string& key_id, const char* tmpl) {
  work.exec_params(
      "select pg_notify(api.config('invalidate_channel'), 'key:' || key_hash)"
      " from api_keys where id = $1",
      key_id);
  work.exec_params(
      "select api.queue_notification(s.id, 'owner', $2, s.owner_email,"
      "   jsonb_build_object('api_key_id', k.id, 'name', k.name, 'prefix', k.prefix,"
      "     'scopes', k.scopes, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at,"
      "     'created_by', m.email))"
      " from api_keys k join stores s on s.id = k.store_id"
      " join staff_members m on m.store_id = k.store_id and m.id = k.created_by"
      " where k.id = $1",
      key_id, tmpl);
  work.exec("select pg_notify(api.config('events_channel'), '')");
}

}  // namespace

CreatedKey create_key(pqxx::work& work, const NewKey& request) {
  if (request.name.empty()) throw UsageError("--name must not be empty");
  AccessLevels custom{};
  if (request.access == "custom") {
    custom = parse_custom_scopes(request.scopes);
  } else if (request.access != "read" && request.access != "full") {
    throw UsageError("--access must be read, full or custom, got '" + request.access + "'");
  } else if (!request.scopes.empty()) {
    throw UsageError("--scopes goes only with --access custom");
  }
  Expiry expiry = parse_expiry(request.expires);

  require_store(work, request.store_id, true);  // serialises the key-limit check
  auto plan = work.exec_params1(
      "select s.plan, (api.plan_limits(s.plan)).max_keys as max_keys,"
      " (select count(*) from api_keys k where k.store_id = s.id and k.revoked_at is null"
      "   and (k.expires_at is null or k.expires_at > now())) as active_keys"
      " from stores s where s.id = $1",
      request.store_id);
  std::string plan_name = plan["plan"].c_str();
  auto max_keys = plan["max_keys"].as<long>();
  if (max_keys == 0)
    throw CommandError("API keys need the pro or advanced plan; this store is on " + plan_name);

  StaffMember creator = find_staff(work, request.store_id, request.by_email);
  AccessLevels wanted = key_levels(request.access, custom);
  if (auto resource = first_exceeding(wanted, creator.access); !resource.empty())
    throw CommandError(creator.email + " cannot grant " + std::string(resource) +
                       " access beyond their own");
  if (plan["active_keys"].as<long>() >= max_keys)
    throw CommandError("key limit reached: the " + plan_name + " plan allows " +
                       std::to_string(max_keys) + " active keys");

  std::string key = std::string(kLiveKeyPrefix) + crypto::random_alnum(kKeySecretLength);
  auto row = work.exec_params1(
      "insert into api_keys (store_id, name, key_hash, prefix, access, scopes, expires_at, created_by)"
      " values ($1, $2, $3, $4, $5, $6::api_scope[],"
      "   case when $7::interval is not null then api.now_ms() + $7::interval else $8::timestamptz end,"
      "   $9)"
      " returning id",
      request.store_id, request.name, crypto::sha256_hex(key), key.substr(0, kDisplayPrefixLength),
      request.access, text_array_literal(scopes_of(wanted)), expiry.interval, expiry.at, creator.id);
  CreatedKey created{row["id"].c_str(), key};
  announce_key_change(work, created.id, "api_key_created");
  return created;
}

void revoke_key(pqxx::work& work, const std::string& key_id) {
  if (!is_uuid(key_id)) throw CommandError("no API key with id '" + key_id + "'");
  auto rows = work.exec_params(
      "update api_keys set revoked_at = api.now_ms(), updated_at = api.now_ms()"
      " where id = $1 and revoked_at is null returning id",
      key_id);
  if (rows.empty()) {
    bool exists = !work.exec_params("select 1 from api_keys where id = $1", key_id).empty();
    throw CommandError(exists ? "API key '" + key_id + "' is already revoked"
                              : "no API key with id '" + key_id + "'");
  }
  announce_key_change(work, key_id, "api_key_revoked");
}

void write_key(JsonWriter& json, pqxx::work& work, const std::string& key_id,
               const std::string& full_key) {
  auto row = work.exec_params1(std::string("select ") + kKeyColumns + " from api_keys k where k.id = $1",
                               key_id);
  write_key_row(json, row, full_key);
}

void write_key_list(JsonWriter& json, pqxx::work& work, const std::string& store_id) {
  require_store(work, store_id);
  auto rows = work.exec_params(std::string("select ") + kKeyColumns +
                                   " from api_keys k where k.store_id = $1"
                                   " order by k.created_at desc, k.id desc",
                               store_id);
  json.begin_object().field("object", "list").key("data").begin_array();
  for (const auto& row : rows) write_key_row(json, row, "");
  json.end_array().end_object();
}

}  // namespace storeapi::admin
