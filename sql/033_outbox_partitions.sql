-- The outbox expires by partition (docs/DECISIONS.md, "Retention"): events, webhook
-- deliveries, their attempts and e-mail notifications are range-partitioned by time into
-- slots listed in outbox_partitions; a slot whose newest rows are past the retention and
-- whose work has ended is detached (CONCURRENTLY: no lock that stops writes) and dropped
-- by storeapi-dispatch, with no row-by-row delete. Stock history and idempotency keys are
-- not touched.
--
-- One slot partitions all four tables over the same range, and a delivery and its attempts
-- fall in their *event's* slot (partitioned by event_created_at, copied from the event),
-- so a slot's deliveries and attempts go with their events and no row outlives what it
-- belongs to. The partition key is in every primary key and unique constraint, as
-- PostgreSQL requires.
--
-- No foreign keys on these tables (they were to stores, events, webhook_endpoints and
-- deliveries): dropping a table that has one locks the referenced table ACCESS EXCLUSIVE
-- (its triggers are removed), which would stop every read of stores and endpoints for the
-- drop, and a key referencing a partitioned table makes each detach scan the referencing
-- table. Their writers insert only what they have just read or locked: api.emit_event and
-- api.queue_notification the store of the write (stores are never deleted), the fan-out
-- and `event redeliver` deliveries joined from events and webhook_endpoints (endpoints are
-- disabled, never deleted), api.record_webhook_attempt attempts of a delivery it was given.
--
-- Existing rows move into one slot, p_older, that ends now: it expires a retention period
-- after this migration. `migrate` then creates the slots ahead (api.extend_outbox_partitions,
-- sql/functions/50_retention.sql).

create table outbox_partitions (
  name text primary key check (name ~ '^p[0-9a-z_]+$'),
  starts_at timestamptz not null,
  ends_at timestamptz not null unique,
  check (ends_at > starts_at)
);

-- What the dispatcher that expires the slots applies (one row, written on each of its
-- maintenance passes): what `storeapi-admin retention` shows and `event redeliver` checks.
create table outbox_retention (
  singleton boolean primary key default true check (singleton),
  retention interval not null,
  partition_width interval not null,
  recorded_at timestamptz not null default now()
);

-- The same columns, defaults and checks (LIKE copies no foreign keys), and the partition
-- key where a table lacked it.
create table events_partitioned (like events including defaults including constraints including storage)
  partition by range (created_at);

create table webhook_deliveries_partitioned (
  like webhook_deliveries including defaults including constraints,
  event_created_at timestamptz(3) not null
) partition by range (event_created_at);

create table webhook_delivery_attempts_partitioned (
  like webhook_delivery_attempts including defaults including constraints,
  event_created_at timestamptz(3) not null
) partition by range (event_created_at);

create table notifications_partitioned (like notifications including defaults including constraints)
  partition by range (created_at);

do $$
declare
  v_ends timestamptz := now();
begin
  insert into outbox_partitions (name, starts_at, ends_at) values ('p_older', '-infinity', v_ends);
  execute format('create table events_p_older partition of events_partitioned'
                 ' for values from (%L) to (%L) with (toast_tuple_target = 8160)', '-infinity', v_ends);
  execute format('create table webhook_deliveries_p_older partition of webhook_deliveries_partitioned'
                 ' for values from (%L) to (%L)', '-infinity', v_ends);
  execute format('create table webhook_delivery_attempts_p_older partition of webhook_delivery_attempts_partitioned'
                 ' for values from (%L) to (%L)', '-infinity', v_ends);
  execute format('create table notifications_p_older partition of notifications_partitioned'
                 ' for values from (%L) to (%L)', '-infinity', v_ends);
end $$;

insert into events_partitioned (store_id, id, type, payload, created_at, fanned_out_at, trace_id)
select store_id, id, type, payload, created_at, fanned_out_at, trace_id from events;

insert into webhook_deliveries_partitioned
  (store_id, id, event_id, event_created_at, endpoint_id, status, attempts, schedule_start, next_attempt_at,
   last_attempt_at, last_status, last_latency_ms, last_response, created_at, updated_at)
select d.store_id, d.id, d.event_id, e.created_at, d.endpoint_id, d.status, d.attempts, d.schedule_start,
       d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_latency_ms, d.last_response, d.created_at,
       d.updated_at
  from webhook_deliveries d join events e on e.store_id = d.store_id and e.id = d.event_id;

insert into webhook_delivery_attempts_partitioned
  (store_id, delivery_id, event_created_at, attempt, attempted_at, response_status, latency_ms, response_excerpt,
   error)
select a.store_id, a.delivery_id, e.created_at, a.attempt, a.attempted_at, a.response_status, a.latency_ms,
       a.response_excerpt, a.error
  from webhook_delivery_attempts a
  join webhook_deliveries d on d.store_id = a.store_id and d.id = a.delivery_id
  join events e on e.store_id = d.store_id and e.id = d.event_id;

insert into notifications_partitioned
  (store_id, id, kind, template, recipient, locale, data, status, attempts, next_attempt_at, last_error, sent_at,
   created_at, updated_at, trace_id)
select store_id, id, kind, template, recipient, locale, data, status, attempts, next_attempt_at, last_error, sent_at,
       created_at, updated_at, trace_id
  from notifications;

drop table webhook_delivery_attempts;
drop table webhook_deliveries;
drop table events;
drop table notifications;

alter table events_partitioned rename to events;
alter table webhook_deliveries_partitioned rename to webhook_deliveries;
alter table webhook_delivery_attempts_partitioned rename to webhook_delivery_attempts;
alter table notifications_partitioned rename to notifications;

-- The indexes of 005 and 007 with the partition key added where PostgreSQL needs it.
alter table events add primary key (store_id, id, created_at);
create index events_created on events (store_id, created_at, id);
create index events_fanout on events (created_at) where fanned_out_at is null;

alter table webhook_deliveries add primary key (store_id, id, event_created_at);
alter table webhook_deliveries add unique (store_id, event_id, endpoint_id, event_created_at);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_created on webhook_deliveries (store_id, created_at, id);
create index webhook_deliveries_endpoint_pending on webhook_deliveries (store_id, endpoint_id)
  where status = 'pending';

alter table webhook_delivery_attempts add primary key (store_id, delivery_id, attempt, event_created_at);

alter table notifications add primary key (store_id, id, created_at);
create index notifications_created on notifications (store_id, created_at, id);
create index notifications_due on notifications (next_attempt_at) where status = 'pending';

-- Takes the delivery's event time (the attempts' partition key) from the dispatcher,
-- which has it: sql/functions/20_outbox.sql defines the new signature.
drop function api.record_webhook_attempt(uuid, uuid, integer, timestamptz, integer, integer, text, text, interval);
