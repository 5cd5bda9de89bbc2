#include "admin/webhooks/deliveries.hpp"

#include "admin/base/database.hpp"
#include "admin/base/errors.hpp"
#include "admin/base/pod_connection.hpp"
#include "admin/webhooks/retention.hpp"
#include "admin/stores/stores.hpp"
#include "common/uuid.hpp"

#include <map>
#include <vector>

namespace storeapi::admin {
namespace {

constexpr std::string_view kEventPrefix = "evt_";

// "evt_<32 hex>" or a uuid, as the canonical uuid; nullopt otherwise (no event has such
// an id: the caller says so with how long events are kept, as for an unknown one).
std::optional<std::string> event_uuid(const std::string& event) {
  std::string text = event;
  if (text.starts_with(kEventPrefix) && text.size() == kEventPrefix.size() + 32) {
    std::string hex = text.substr(kEventPrefix.size());
    text = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
           hex.substr(20);
  }
  if (!is_uuid(text)) return std::nullopt;
  return text;
}

std::string event_name(const std::string& uuid) {
  std::string hex;
  for (char c : uuid)
    if (c != '-') hex.push_back(c);
  return std::string(kEventPrefix) + hex;
}

void write_attempt(JsonWriter& json, const pqxx::row& a) {
  json.begin_object()
      .field("attempt", a["attempt"].as<std::int64_t>())
      .field("attempted_at", timestamp(a["attempted_at"]))
      .field("response_status", optional_int(a["response_status"]))
      .field("latency_ms", optional_int(a["latency_ms"]))
      .field("response_excerpt", optional_text(a["response_excerpt"]))
      .field("error", optional_text(a["error"]))
      .end_object();
}

}  // namespace

void write_deliveries(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                      const std::optional<std::string>& event, long limit,
                      const std::optional<std::string>& starting_after) {
  require_store(work, store_id);
  const std::string kept = "deliveries and events are kept for " + describe(applied_retention(work).keep);
  std::optional<std::string> event_id;
  if (event) {
    event_id = event_uuid(*event);
    if (!event_id ||
        work.exec_params("select 1 from events where store_id = $1 and id = $2", store_id, *event_id).empty())
      throw CommandError("no event '" + *event + "' in store '" + store_id + "' (" + kept + ")");
  }
  if (starting_after &&
      (!is_uuid(*starting_after) ||
       work.exec_params("select 1 from webhook_deliveries where store_id = $1 and id = $2", store_id, *starting_after)
           .empty()))
    throw CommandError("no delivery '" + *starting_after + "' in store '" + store_id + "' (" + kept + ")");
  // Newest first, one more than asked to tell whether a page follows. A delivery is shown
  // with its event: both live in the event's time slot and go together.
  auto deliveries = work.exec_params(
      "select d.id, d.event_id, e.type, d.endpoint_id, w.url, d.status,"
      "   case when d.status = 'pending' then d.next_attempt_at end as next_attempt_at,"
      "   d.created_at, d.updated_at, d.event_created_at"
      " from webhook_deliveries d"
      " join events e on e.store_id = d.store_id and e.id = d.event_id and e.created_at = d.event_created_at"
      " join webhook_endpoints w on w.store_id = d.store_id and w.id = d.endpoint_id"
      " where d.store_id = $1 and ($2::uuid is null or d.event_id = $2)"
      "   and ($4::uuid is null or (d.created_at, d.id) <"
      "        (select a.created_at, a.id from webhook_deliveries a where a.store_id = $1 and a.id = $4))"
      " order by d.created_at desc, d.id desc limit $3 + 1",
      store_id, event_id, limit, starting_after);
  const bool has_more = deliveries.size() > static_cast<std::size_t>(limit);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < deliveries.size() && i < static_cast<std::size_t>(limit); ++i)
    ids.emplace_back(deliveries[i]["id"].c_str());
  std::map<std::string, std::vector<pqxx::row>> attempts;
  for (const auto& a : work.exec_params(
           "select delivery_id, attempt, attempted_at, response_status, latency_ms, response_excerpt, error"
           " from webhook_delivery_attempts where store_id = $1 and delivery_id = any ($2::uuid[])"
           " order by delivery_id, attempt",
           store_id, text_array_literal(ids)))
    attempts[a["delivery_id"].c_str()].push_back(a);

  json.begin_object().field("object", "list").key("data").begin_array();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& d = deliveries[i];
    json.begin_object()
        .field("object", "webhook_delivery")
        .field("id", d["id"].c_str())
        .field("event_id", event_name(d["event_id"].c_str()))
        .field("event_type", d["type"].c_str())
        .field("endpoint_id", d["endpoint_id"].c_str())
        .field("url", d["url"].c_str())
        .field("status", d["status"].c_str())
        .field("next_attempt_at", timestamp(d["next_attempt_at"]))
        .field("created_at", timestamp(d["created_at"]))
        .field("updated_at", timestamp(d["updated_at"]));
    json.key("attempts").begin_array();
    for (const auto& a : attempts[d["id"].c_str()]) write_attempt(json, a);
    json.end_array().end_object();
  }
  json.end_array().field("has_more", has_more).end_object();
}

std::optional<std::string> event_store(pqxx::work& work, const std::string& event) {
  const std::optional<std::string> id = event_uuid(event);
  if (!id) return std::nullopt;
  auto rows = work.exec_params("select store_id from events where id = $1", *id);
  if (rows.empty()) return std::nullopt;
  return rows[0]["store_id"].c_str();
}

void redeliver_event(JsonWriter& json, pqxx::work& work, const std::string& event,
                     const std::optional<std::string>& store_id) {
  if (store_id && !is_uuid(*store_id)) throw CommandError("no store with id '" + *store_id + "'");
  const Retention retention = applied_retention(work);
  const std::string unknown =
      "no event with id '" + event + "' (events are kept for " + describe(retention.keep) + "; an older one is gone)";
  const std::optional<std::string> id = event_uuid(event);
  if (!id) throw CommandError(unknown);
  auto found = work.exec_params(
      "select store_id, created_at, created_at <= now() - make_interval(secs => $3) as past_retention from events"
      " where id = $1 and ($2::uuid is null or store_id = $2) for update",
      *id, store_id, static_cast<double>(retention.keep.count()));
  if (found.empty()) throw CommandError(unknown);
  // Its slot is about to be dropped: a new pending delivery would only hold it back, and
  // the dispatcher has no older event to go with it once the slot is gone.
  if (found[0]["past_retention"].as<bool>())
    throw CommandError("event '" + event + "' is past the retention period (" + describe(retention.keep) +
                       ") and can no longer be redelivered");
  std::string store = found[0]["store_id"].c_str();
  std::string created_at = found[0]["created_at"].c_str();
  claim_store_write(work, store);

  // The endpoints that would receive the event now, each with its delivery (existing or new).
  auto deliveries = work.exec_params(
      "with targets as ("
      "  select w.id as endpoint_id, w.url from events e join webhook_endpoints w on w.store_id = e.store_id"
      "   where e.store_id = $1 and e.id = $2 and e.created_at = $3"
      "     and w.enabled and (w.events is null or e.type = any (w.events))"
      "), reset as ("
      "  update webhook_deliveries d set status = 'pending', next_attempt_at = api.now_ms(),"
      "         schedule_start = d.attempts, updated_at = api.now_ms()"
      "    from targets t where d.store_id = $1 and d.event_id = $2 and d.event_created_at = $3"
      "     and d.endpoint_id = t.endpoint_id"
      "  returning d.id, d.endpoint_id"
      "), created as ("
      "  insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id)"
      "  select $1, $2, $3, t.endpoint_id from targets t"
      "   where not exists (select 1 from webhook_deliveries d where d.store_id = $1 and d.event_id = $2"
      "                        and d.event_created_at = $3 and d.endpoint_id = t.endpoint_id)"
      "  returning id, endpoint_id"
      ")"
      " select x.id, x.endpoint_id, t.url from (select * from reset union all select * from created) x"
      " join targets t on t.endpoint_id = x.endpoint_id order by t.url, x.endpoint_id",
      store, *id, created_at);
  if (deliveries.empty())
    throw CommandError("event '" + event + "' has no enabled webhook endpoint subscribed to its type");
  // Fanned out by hand: a dispatcher must not fan it out once more.
  work.exec_params(
      "update events set fanned_out_at = api.now_ms()"
      " where store_id = $1 and id = $2 and created_at = $3 and fanned_out_at is null",
      store, *id, created_at);
  work.exec("select pg_notify(api.config('events_channel'), '')");

  json.begin_object()
      .field("object", "event_redelivery")
      .field("event_id", event_name(*id))
      .field("store_id", store)
      .key("deliveries")
      .begin_array();
  for (const auto& d : deliveries)
    json.begin_object()
        .field("id", d["id"].c_str())
        .field("endpoint_id", d["endpoint_id"].c_str())
        .field("url", d["url"].c_str())
        .end_object();
  json.end_array().end_object();
}

}  // namespace storeapi::admin
