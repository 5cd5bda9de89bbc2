#include "admin/stores/stores.hpp"

#include "admin/stores/access.hpp"
#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/stores/staff.hpp"
#include "admin/base/validate.hpp"
#include "common/uuid.hpp"

namespace storeapi::admin {
void notify_store_changed(pqxx::work& work, const std::string& store_id) {
  work.exec_params("select pg_notify(api.config('invalidate_channel'), 'store:' || $1)", store_id);
}

std::string create_store(pqxx::work& work, const NewStore& s) {
  if (s.name.empty()) throw UsageError("--name must not be empty");
  check_matches(s.slug, "[a-z0-9]+(-[a-z0-9]+)*",
                "--slug must be lower-case letters and digits separated by single dashes, got '" +
                    s.slug + "'");
  check_matches(s.currency, "[A-Z]{3}",
                "--currency must be a three-letter upper-case ISO 4217 code, got '" + s.currency + "'");
  check_plan(s.plan);
  check_email(s.owner_email, "owner-email");
  check_matches(s.locale, "[a-z]{2}(-[A-Z]{2})?",
                "--locale must be a language code such as en or en-GB, got '" + s.locale + "'");
  std::string url = s.url.value_or("https://" + s.slug + ".example.com");
  check_url(url, "url");

  if (!work.exec_params("select 1 from stores where slug = $1", s.slug).empty())
    throw CommandError("a store with slug '" + s.slug + "' already exists");
  // An unknown pod is refused before anything is written.
  if (s.pod != "main") pod_url(work, s.pod);
  auto row = work.exec_params1(
      "insert into stores (name, slug, url, currency, locale, plan, owner_email)"
      " values ($1, $2, $3, $4, $5, $6, $7) returning id",
      s.name, s.slug, url, s.currency, s.locale, s.plan, s.owner_email);
  // Main is the column's default, left to it so that a database migrated before pods
  // takes stores too (the tests of `migrate` fill one).
  if (s.pod != "main") work.exec_params("update stores set pod = $2 where id = $1", row["id"].c_str(), s.pod);
  std::string id = row["id"].c_str();
  AccessLevels all{};
  all.fill(Level::write);
  add_staff(work, id, s.owner_email, all, true);
  return id;
}

void require_store(pqxx::work& work, const std::string& store_id, bool for_update) {
  std::string query = std::string("select 1 from stores where id = $1") + (for_update ? " for update" : "");
  if (!is_uuid(store_id) || work.exec_params(query, store_id).empty())
    throw CommandError("no store with id '" + store_id + "'");
}

void set_plan(pqxx::work& work, const std::string& store_id, const std::string& plan) {
  check_plan(plan);
  require_store(work, store_id, true);
  work.exec_params("update stores set plan = $2, updated_at = api.now_ms() where id = $1",
                   store_id, plan);
  notify_store_changed(work, store_id);
}

void set_rate_limit(pqxx::work& work, const std::string& store_id, std::optional<long> rpm) {
  if (rpm && *rpm <= 0) throw UsageError("--rpm must be a positive integer or 'default'");
  require_store(work, store_id, true);
  work.exec_params("update stores set rate_limit_rpm = $2, updated_at = api.now_ms() where id = $1",
                   store_id, rpm);
  notify_store_changed(work, store_id);
}

void write_store(JsonWriter& json, pqxx::work& work, const std::string& store_id) {
  auto r = work.exec_params1(
      "select s.id, s.name, s.slug, s.url, s.currency, s.locale, s.plan, s.rate_limit_rpm,"
      " coalesce(s.rate_limit_rpm, (api.plan_limits(s.plan)).rpm) as effective_rpm, s.owner_email,"
      " (select id from staff_members where store_id = s.id and is_owner) as owner_staff_id, s.created_at,"
      " s.updated_at, s.pod"
      " from stores s where s.id = $1",
      store_id);
  json.begin_object()
      .field("object", "store")
      .field("id", r["id"].c_str())
      .field("name", r["name"].c_str())
      .field("slug", r["slug"].c_str())
      .field("url", r["url"].c_str())
      .field("currency", r["currency"].c_str())
      .field("locale", r["locale"].c_str())
      .field("plan", r["plan"].c_str())
      .field("rate_limit_rpm", optional_int(r["rate_limit_rpm"]))
      .field("effective_rpm", r["effective_rpm"].as<std::int64_t>())
      .field("owner_email", r["owner_email"].c_str())
      .field("owner_staff_id", r["owner_staff_id"].c_str())
      .field("created_at", timestamp(r["created_at"]))
      .field("updated_at", timestamp(r["updated_at"]))
      .field("pod", r["pod"].c_str())
      .end_object();
}

}  // namespace storeapi::admin
