-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes; first
-- defined by sql/007_dispatch.sql. Change a function here, not in a new migration; a
-- changed signature needs its old one dropped in a numbered migration first.


-- Waking the dispatchers: NOTIFY storeapi_events, once outbox rows committed. A NOTIFY
-- in a transaction takes a database-wide lock at its commit, so the server's writes do
-- not all notify (that serialised them: 2.7x slower stock adjustments): on each core at
-- most one write per 25 ms carries it, in its own transaction (api.notify_dispatchers,
-- the statement before the write's), and the core sends api.wake_dispatchers, a
-- transaction of its own that need not wait for the disk, only when no write came to
-- carry it (src/api/dispatcher_wake.hpp). Low-rate writers (the admin tool) may call
-- pg_notify in their own transaction. Without a wake-up nothing is lost: dispatchers
-- also poll.
create or replace function api.notify_dispatchers() returns void
language plpgsql volatile as $$
begin
  perform pg_notify(api.config('events_channel'), '');
end $$;

create or replace function api.wake_dispatchers() returns void
language plpgsql volatile as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  perform api.notify_dispatchers();
end $$;

-- The trace id of the request writing (32 lowercase hex, or null): kept for the rest of
-- the transaction, where api.emit_event and api.queue_notification store it with their
-- rows. A write statement calls it before its write function (src/api/write_statements.cpp),
-- inside its one statement: no statement or round trip of its own. Always true.
create or replace function api.set_trace_id(p_trace_id text) returns boolean
language sql volatile as $$
  select set_config('storeapi.trace_id', coalesce(p_trace_id, ''), true) is not null
$$;

-- The trace id api.set_trace_id kept in this transaction, null when none.
create or replace function api.current_trace_id() returns text
language sql stable as $$
  select nullif(current_setting('storeapi.trace_id', true), '')
$$;

-- An event's payload, in docs/DESIGN.md's shape. p_object is the resource's rendered
-- document, the write's response, and p_previous_attributes a JSON object as text
-- (api.previous_attributes): the payload is concatenated around them, so data.object
-- carries the response's bytes (events.payload is json, sql/012_event_payload_json.sql)
-- and the document is never parsed again. The other fields need no escaping: the id is
-- hex, the store a uuid, the type matches the events table's check ([a-z_.]), the
-- timestamp is api.ts's digits. One expression, each argument used once: the planner
-- inlines it into the statement that inserts the event.
create or replace function api.event_payload(p_id uuid, p_type text, p_created_at timestamptz, p_store uuid,
                                             p_object text, p_previous_attributes text)
returns json language sql stable parallel safe as $$
  select ('{"id":"evt_' || replace(p_id::text, '-', '') || '","object":"event","type":"' || p_type
          || '","created_at":"' || api.ts(p_created_at) || '","store_id":"' || p_store
          || '","data":{"object":' || p_object || ',"previous_attributes":' || p_previous_attributes
          || '}}')::json
$$;

-- The outbox row of a write's event (api.event_payload). Call it inside the write's
-- transaction; wake the dispatchers with the commit or after it (above).
create or replace function api.emit_event(p_store uuid, p_type text, p_object text,
                               p_previous_attributes text default '{}')
returns uuid language plpgsql volatile as $$
declare
  v_id uuid := gen_random_uuid();
  v_created_at timestamptz := api.now_ms();
begin
  insert into events (store_id, id, type, payload, created_at, trace_id)
  values (p_store, v_id, p_type, api.event_payload(v_id, p_type, v_created_at, p_store, p_object, p_previous_attributes),
          v_created_at, api.current_trace_id());
  return v_id;
end $$;

-- An e-mail to a customer or the store owner (templates and their data: docs/DECISIONS.md).
-- p_locale null = the store's locale. Wake the dispatchers with the commit or after it (above).
create or replace function api.queue_notification(p_store uuid, p_kind text, p_template text,
                                       p_recipient text, p_data jsonb, p_locale text default null)
returns uuid language plpgsql volatile as $$
declare
  v_id uuid;
begin
  insert into notifications (store_id, kind, template, recipient, locale, data, trace_id)
  values (p_store, p_kind, p_template, p_recipient,
          coalesce(p_locale, (select locale from stores where id = p_store)), p_data, api.current_trace_id())
  returning id into v_id;
  return v_id;
end $$;

-- Whether this pod's dispatcher leaves the store's outbox alone (store_fences, written by
-- a move: docs/DECISIONS.md, "Pods"): no fan-out, no delivery or e-mail claimed, until
-- the move lifts it here or the store's rows are gone. A claim that began before the
-- pause committed may still take the store's rows: the mover waits for those attempts.
create or replace function api.dispatch_paused(p_store uuid) returns boolean
language sql stable as $$
  select exists (select from store_fences f where f.store_id = p_store and f.dispatch_paused)
$$;

-- Stops deliveries to an endpoint: it gets no new ones and its pending ones fail.
-- p_reason 'failing' (the dispatcher's rule) also e-mails the owner. False when the
-- endpoint was already disabled.
create or replace function api.disable_webhook_endpoint(p_store uuid, p_endpoint uuid, p_reason text)
returns boolean language plpgsql volatile as $$
begin
  update webhook_endpoints
     set enabled = false, disabled_at = api.now_ms(), disabled_reason = p_reason, updated_at = api.now_ms()
   where store_id = p_store and id = p_endpoint and enabled;
  if not found then
    return false;
  end if;
  update webhook_deliveries set status = 'failed', updated_at = api.now_ms()
   where store_id = p_store and endpoint_id = p_endpoint and status = 'pending';
  if p_reason = 'failing' then
    perform api.queue_notification(s.id, 'owner', 'webhook_endpoint_disabled', s.owner_email,
              jsonb_build_object('endpoint_id', e.id, 'url', e.url,
                                 'failing_since', to_char(e.failing_since at time zone 'UTC',
                                                          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              s.locale)
       from webhook_endpoints e join stores s on s.id = e.store_id
      where e.store_id = p_store and e.id = p_endpoint;
  end if;
  return true;
end $$;

-- Records the outcome of attempt p_attempt of a delivery (the dispatcher calls it once per
-- attempt) and returns the delivery's status after it, or null when a later attempt or a
-- recorded success has superseded this one.
--   p_event_created_at: the delivery's event's time, the partition key of the delivery and
--     its attempts (sql/033_outbox_partitions.sql): it picks their partition at once.
--   p_status: the HTTP status, null when no response came (p_error says why).
--   p_retry_in: when to try again after a failure; null = the schedule is exhausted.
-- A 2xx wins even when it arrives late (after another dispatcher took over the delivery):
-- the receiver has the event. A failure counts only while it is the latest attempt.
create or replace function api.record_webhook_attempt(
    p_store uuid, p_delivery uuid, p_event_created_at timestamptz, p_attempt integer, p_attempted_at timestamptz,
    p_status integer, p_latency_ms integer, p_response text, p_error text, p_retry_in interval)
returns text language plpgsql volatile as $$
declare
  v_endpoint uuid;
  v_status text;
  v_round_started_at timestamptz;
begin
  -- The delivery may be gone: fan-outs commit asynchronously (dispatch/outbox.cpp), so a
  -- failover can lose one together with its event's fanned_out_at, after the dispatcher
  -- claimed and sent it. The event is fanned out again and delivered anew; this outcome
  -- has nothing left to record (its attempt would belong to no delivery).
  if not exists (select from webhook_deliveries
                  where store_id = p_store and id = p_delivery and event_created_at = p_event_created_at) then
    return null;
  end if;
  insert into webhook_delivery_attempts
    (store_id, delivery_id, event_created_at, attempt, attempted_at, response_status, latency_ms, response_excerpt,
     error)
  values (p_store, p_delivery, p_event_created_at, p_attempt, p_attempted_at, p_status, p_latency_ms, p_response,
          p_error)
  on conflict (store_id, delivery_id, attempt, event_created_at) do update
    set attempted_at = excluded.attempted_at, response_status = excluded.response_status,
        latency_ms = excluded.latency_ms, response_excerpt = excluded.response_excerpt,
        error = excluded.error;

  if p_status between 200 and 299 then
    update webhook_deliveries
       set status = 'succeeded', last_attempt_at = p_attempted_at, last_status = p_status,
           last_latency_ms = p_latency_ms, last_response = p_response, updated_at = api.now_ms()
     where store_id = p_store and id = p_delivery and event_created_at = p_event_created_at
       and status <> 'succeeded'
    returning endpoint_id into v_endpoint;
    if not found then
      return null;
    end if;
    update webhook_endpoints set failing_since = null
     where store_id = p_store and id = v_endpoint and failing_since is not null;
    return 'succeeded';
  end if;

  update webhook_deliveries
     set status = case when p_retry_in is null then 'failed' else 'pending' end,
         next_attempt_at = coalesce(api.now_ms() + p_retry_in, next_attempt_at),
         last_attempt_at = p_attempted_at, last_status = p_status, last_latency_ms = p_latency_ms,
         last_response = p_response, updated_at = api.now_ms()
   where store_id = p_store and id = p_delivery and event_created_at = p_event_created_at
     and status = 'pending' and attempts = p_attempt
  returning endpoint_id, status,
            (select a.attempted_at from webhook_delivery_attempts a
              where a.store_id = p_store and a.delivery_id = p_delivery
                and a.event_created_at = p_event_created_at and a.attempt = webhook_deliveries.schedule_start + 1)
       into v_endpoint, v_status, v_round_started_at;
  if not found then
    return null;
  end if;
  update webhook_endpoints set failing_since = p_attempted_at
   where store_id = p_store and id = v_endpoint and failing_since is null;
  -- Failed for the whole schedule (about three days) without one success in between.
  if v_status = 'failed' and exists (
       select 1 from webhook_endpoints
        where store_id = p_store and id = v_endpoint and enabled
          and failing_since <= v_round_started_at) then
    perform api.disable_webhook_endpoint(p_store, v_endpoint, 'failing');
  end if;
  return v_status;
end $$;
