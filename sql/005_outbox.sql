-- Outboxes written in the same transaction as each change, and the idempotency records.
-- Dispatchers claim rows with FOR UPDATE SKIP LOCKED and are woken by
-- NOTIFY storeapi_events (api.config('events_channel')).

-- payload: {"id":"evt_<id as 32 hex digits>","object":"event","type","created_at",
--           "store_id","data":{"object":<resource as the API renders it>,
--           "previous_attributes":{...}}}
-- fanned_out_at is set once a webhook_deliveries row exists for each endpoint.
create table events (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  type text not null check (type ~ '^[a-z_]+\.[a-z_]+$'),
  payload jsonb not null check (jsonb_typeof(payload) = 'object'),
  created_at timestamptz(3) not null default api.now_ms(),
  fanned_out_at timestamptz(3),
  primary key (store_id, id)
);
create index events_created on events (store_id, created_at, id);
-- Small: only events still waiting to be fanned out.
create index events_pending on events (store_id, created_at) where fanned_out_at is null;

-- secret: the full signing secret ('whsec_' + base64); the dispatcher signs with it.
create table webhook_endpoints (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  url text not null check (url ~ '^https?://[^\s]+$'),
  secret text not null check (secret like 'whsec\_%'),
  enabled boolean not null default true,
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  check (updated_at >= created_at)
);

-- One row per (event, endpoint). status: pending (next attempt at next_attempt_at),
-- succeeded, failed (retries exhausted). The last_* fields summarise the latest attempt;
-- every attempt is kept in webhook_delivery_attempts.
create table webhook_deliveries (
  store_id uuid not null,
  id uuid not null default gen_random_uuid(),
  event_id uuid not null,
  endpoint_id uuid not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz(3) not null default api.now_ms(),
  last_attempt_at timestamptz(3),
  last_status integer,
  last_latency_ms integer check (last_latency_ms >= 0),
  last_response text check (char_length(last_response) <= 1000),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  unique (store_id, event_id, endpoint_id),
  foreign key (store_id, event_id) references events (store_id, id),
  foreign key (store_id, endpoint_id) references webhook_endpoints (store_id, id),
  check (updated_at >= created_at)
);
-- The dispatchers' queue; see docs/DECISIONS.md on indexes that serve every store.
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
  where status = 'pending';

create table webhook_delivery_attempts (
  store_id uuid not null,
  delivery_id uuid not null,
  attempt integer not null check (attempt > 0),
  attempted_at timestamptz(3) not null default api.now_ms(),
  response_status integer,
  latency_ms integer check (latency_ms >= 0),
  response_excerpt text check (char_length(response_excerpt) <= 1000),
  error text,
  primary key (store_id, delivery_id, attempt),
  foreign key (store_id, delivery_id) references webhook_deliveries (store_id, id)
);

-- E-mails to customers (order and booking changes) and owners (API keys created or
-- revoked). data holds what the template needs.
create table notifications (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  kind text not null check (kind in ('customer', 'owner')),
  template text not null check (template ~ '^[a-z_]+$'),
  recipient text not null check (recipient like '%_@_%'),
  locale text not null,
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object'),
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz(3) not null default api.now_ms(),
  last_error text,
  sent_at timestamptz(3),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  check (updated_at >= created_at),
  check ((status = 'sent') = (sent_at is not null))
);
create index notifications_created on notifications (store_id, created_at, id);
create index notifications_due on notifications (next_attempt_at) where status = 'pending';

-- Taken (in_progress, with the owner's token) before the work and finished (completed,
-- with the stored response) in the same statement as the write. An in_progress row
-- older than 60 s counts as abandoned; rows are purged after 24 h.
create table idempotency_keys (
  store_id uuid not null references stores (id),
  key text not null check (char_length(key) between 1 and 255),
  fingerprint text not null,
  state text not null check (state in ('in_progress', 'completed')),
  owner_token uuid,
  started_at timestamptz(3) not null default api.now_ms(),
  response_status integer check (response_status between 100 and 599),
  response_body text,
  completed_at timestamptz(3),
  primary key (store_id, key),
  check (case state
           when 'in_progress' then owner_token is not null and completed_at is null
           else response_status is not null and response_body is not null
                and completed_at is not null end)
);
create index idempotency_keys_purge on idempotency_keys (started_at);
