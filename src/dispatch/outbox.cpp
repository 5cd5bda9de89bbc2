#include "dispatch/outbox.hpp"

#include "common/trace_context.hpp"
#include "dispatch/config.hpp"
#include "dispatch/outcomes_json.hpp"

#include <pqxx/pqxx>

namespace storeapi::dispatch {
namespace {

constexpr const char* kFanOut = R"SQL(
with batch as (
  select store_id, id, type, created_at from events
   where fanned_out_at is null and not api.dispatch_paused(store_id)
   order by created_at
   limit $1
   for update skip locked
), deliveries as (
  -- Due at the event's time, so claiming in next_attempt_at order follows event order.
  insert into webhook_deliveries (store_id, event_id, event_created_at, endpoint_id, next_attempt_at)
  select b.store_id, b.id, b.created_at, w.id, b.created_at
    from batch b join webhook_endpoints w on w.store_id = b.store_id
   where w.enabled and (w.events is null or b.type = any (w.events))
  on conflict (store_id, event_id, endpoint_id, event_created_at) do nothing
)
update events e set fanned_out_at = api.now_ms()
  from batch b
 where e.store_id = b.store_id and e.id = b.id and e.created_at = b.created_at
)SQL";

constexpr const char* kClaimDeliveries = R"SQL(
with due as (
  select store_id, id, event_created_at, attempts, updated_at from webhook_deliveries
   where status = 'pending' and next_attempt_at <= now() and not api.dispatch_paused(store_id)
   order by next_attempt_at
   limit $1
   for update skip locked
), abandoned as (
  -- A recorded attempt always has its row; a missing one was claimed by a dispatcher
  -- that stopped before recording it (its lease ran out). updated_at is that claim's time.
  insert into webhook_delivery_attempts (store_id, delivery_id, event_created_at, attempt, attempted_at, error)
  select store_id, id, event_created_at, attempts, updated_at,
         'outcome unknown: the dispatcher making this attempt stopped before recording it'
    from due where attempts > 0
  on conflict (store_id, delivery_id, attempt, event_created_at) do nothing
), claimed as (
  update webhook_deliveries d
     set attempts = d.attempts + 1, next_attempt_at = api.now_ms() + $2 * interval '1 millisecond',
         updated_at = api.now_ms()
    from due
   where d.store_id = due.store_id and d.id = due.id and d.event_created_at = due.event_created_at
  returning d.store_id, d.id, d.event_id, d.event_created_at, d.endpoint_id, d.attempts, d.schedule_start,
            d.next_attempt_at
)
select c.store_id, c.id, 'evt_' || replace(c.event_id::text, '-', ''), w.url, w.secret,
       case when w.previous_secret_expires_at > now() then w.previous_secret end,
       e.payload::text, c.attempts, c.attempts - c.schedule_start,
       (extract(epoch from e.created_at) * 1000000)::bigint, e.trace_id
  from claimed c
  join events e on e.store_id = c.store_id and e.id = c.event_id and e.created_at = c.event_created_at
  join webhook_endpoints w on w.store_id = c.store_id and w.id = c.endpoint_id
 order by e.created_at
)SQL";

constexpr const char* kClaimNotifications = R"SQL(
with due as (
  select store_id, id, created_at from notifications
   where status = 'pending' and next_attempt_at <= now() and not api.dispatch_paused(store_id)
   order by next_attempt_at
   limit $1
   for update skip locked
)
update notifications n
   set attempts = n.attempts + 1, next_attempt_at = api.now_ms() + $2 * interval '1 millisecond',
       updated_at = api.now_ms()
  from due join stores s on s.id = due.store_id
 where n.store_id = due.store_id and n.id = due.id and n.created_at = due.created_at
returning n.store_id, n.id, n.kind, n.template, n.recipient, n.locale, n.data::text, n.attempts,
          s.name, s.url, s.owner_email, n.trace_id, (extract(epoch from n.created_at) * 1000000)::bigint
)SQL";

// Outcomes go in batches, as one JSON array per statement (see outcomes_json): one
// round trip however many transfers finished together.
constexpr const char* kRecordDeliveries = R"SQL(
select r.i, api.record_webhook_attempt(r.store_id, r.delivery_id, r.event_created_at, r.attempt, r.attempted_at,
                                       r.status, r.latency_ms, r.response, r.error,
                                       r.retry_ms * interval '1 millisecond')
  from jsonb_to_recordset($1::jsonb) as r(i integer, store_id uuid, delivery_id uuid, attempt integer,
         attempted_at timestamptz, status integer, latency_ms integer, response text, error text, retry_ms bigint,
         event_created_at timestamptz)
 order by r.i
)SQL";

// A send counts whenever it comes; a failure only while it is the latest attempt.
constexpr const char* kRecordNotifications = R"SQL(
update notifications n
   set status = case when r.sent then 'sent' when r.retry_ms is null then 'failed' else 'pending' end,
       sent_at = case when r.sent then api.now_ms() end,
       next_attempt_at = case when r.sent or r.retry_ms is null then n.next_attempt_at
                              else api.now_ms() + r.retry_ms * interval '1 millisecond' end,
       last_error = case when r.sent then null else r.error end,
       updated_at = api.now_ms()
  from jsonb_to_recordset($1::jsonb) as r(store_id uuid, id uuid, attempt integer, sent boolean, error text,
                                          retry_ms bigint, created_at timestamptz)
 where n.store_id = r.store_id and n.id = r.id and n.created_at = r.created_at and n.status = 'pending' and (r.sent or n.attempts = r.attempt)
)SQL";

constexpr const char* kNextDue = R"SQL(
select floor(extract(epoch from least(
         (select min(created_at) from events where fanned_out_at is null and not api.dispatch_paused(store_id)),
         (select min(next_attempt_at) from webhook_deliveries
           where status = 'pending' and not api.dispatch_paused(store_id)),
         case when $1 then (select min(next_attempt_at) from notifications
                             where status = 'pending' and not api.dispatch_paused(store_id)) end)
       - now()) * 1000)::bigint
)SQL";

// What is waiting, for the dispatcher's backlog gauges.
constexpr const char* kBacklog = R"SQL(
select (select count(*) from events where fanned_out_at is null),
       (select count(*) from webhook_deliveries where status = 'pending' and next_attempt_at <= now()),
       (select count(*) from notifications where status = 'pending' and next_attempt_at <= now()),
       (select count(*) from webhook_endpoints where not enabled)
)SQL";

// A row's trace id, or empty when it has none or not a well-formed one: it goes into
// headers, and the column has no check (sql/031_event_trace_ids.sql).
std::string trace_id_of_row(const pqxx::field& f) {
  if (f.is_null() || !trace::is_trace_id(f.c_str())) return {};
  return f.c_str();
}

// Runs a claim statement in its own transaction: the leases are committed before any
// request goes out.
pqxx::result claim(pqxx::connection& conn, const char* statement, std::size_t limit, long long lease_ms) {
  pqxx::work work(conn);
  auto rows = work.exec_prepared(statement, static_cast<long>(limit), lease_ms);
  work.commit();
  return rows;
}

}  // namespace

struct Outbox::Session {
  explicit Session(const std::string& url) : conn(url) {
    conn.set_variable("TimeZone", "'UTC'");
    conn.set_variable("application_name", std::string("'").append(kApplicationName).append("'"));
    // Fan-out and claims commit without waiting for the WAL flush; outcomes wait (see
    // record()). WAL is flushed in order, so a crash can lose only claims and fan-outs
    // no durable outcome came after: work that is simply done again.
    conn.set_variable("synchronous_commit", "off");
    conn.prepare("fan_out", kFanOut);
    conn.prepare("claim_deliveries", kClaimDeliveries);
    conn.prepare("claim_notifications", kClaimNotifications);
    conn.prepare("record_deliveries", kRecordDeliveries);
    conn.prepare("record_notifications", kRecordNotifications);
    conn.prepare("next_due", kNextDue);
    conn.prepare("backlog", kBacklog);
  }

  pqxx::connection conn;
};

Outbox::Outbox(const std::string& database_url, std::chrono::milliseconds lease)
    : session_(std::make_unique<Session>(database_url)), lease_ms_(lease.count()) {}

Outbox::~Outbox() = default;

std::size_t Outbox::fan_out(std::size_t limit) {
  pqxx::work work(session_->conn);
  auto result = work.exec_prepared("fan_out", static_cast<long>(limit));
  work.commit();
  return result.affected_rows();
}

Backlog Outbox::backlog() {
  pqxx::nontransaction tx(session_->conn);
  auto r = tx.exec_prepared1("backlog");
  return {r[0].as<std::int64_t>(), r[1].as<std::int64_t>(), r[2].as<std::int64_t>(), r[3].as<std::int64_t>()};
}

std::vector<DeliveryJob> Outbox::claim_deliveries(std::size_t limit) {
  auto rows = claim(session_->conn, "claim_deliveries", limit, lease_ms_);
  std::vector<DeliveryJob> jobs;
  jobs.reserve(rows.size());
  for (const auto& r : rows) {
    DeliveryJob job;
    job.store_id = r[0].c_str();
    job.delivery_id = r[1].c_str();
    job.message_id = r[2].c_str();
    job.url = r[3].c_str();
    job.secrets.emplace_back(r[4].c_str());
    if (!r[5].is_null()) job.secrets.emplace_back(r[5].c_str());
    job.payload = r[6].c_str();
    job.attempt = r[7].as<int>();
    job.round_attempt = r[8].as<int>();
    job.event_created_at = r[9].as<timefmt::Micros>();
    job.trace_id = trace_id_of_row(r[10]);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<NotificationJob> Outbox::claim_notifications(std::size_t limit) {
  auto rows = claim(session_->conn, "claim_notifications", limit, lease_ms_);
  std::vector<NotificationJob> jobs;
  jobs.reserve(rows.size());
  for (const auto& r : rows) {
    jobs.push_back({r[0].c_str(), r[1].c_str(), r[2].c_str(), r[3].c_str(), r[4].c_str(), r[5].c_str(),
                    r[6].c_str(), r[7].as<int>(), r[8].c_str(), r[9].c_str(), r[10].c_str(),
                    trace_id_of_row(r[11]), r[12].as<timefmt::Micros>()});
  }
  return jobs;
}

std::vector<std::string> Outbox::record(std::span<const DeliveryOutcome> deliveries,
                                        std::span<const NotificationOutcome> notifications) {
  std::vector<std::string> statuses;
  statuses.reserve(deliveries.size());
  pqxx::work work(session_->conn);
  // A recorded 2xx must survive a database crash: it is what keeps a delivery from repeating.
  work.exec("set local synchronous_commit = on");
  if (!deliveries.empty())
    for (const auto& row : work.exec_prepared("record_deliveries", outcomes_json(deliveries)))
      statuses.emplace_back(row[1].is_null() ? "" : row[1].c_str());
  if (!notifications.empty()) work.exec_prepared("record_notifications", outcomes_json(notifications));
  work.commit();
  return statuses;
}

std::optional<std::chrono::milliseconds> Outbox::next_due(bool with_notifications) {
  pqxx::nontransaction work(session_->conn);
  auto field = work.exec_prepared1("next_due", with_notifications)[0];
  if (field.is_null()) return std::nullopt;
  return std::chrono::milliseconds(field.as<long long>());
}

}  // namespace storeapi::dispatch
