-- Foundation: the `api` schema (functions shared by the server, the dispatcher and the
-- admin tool), the millisecond clock, configuration constants and the value domains
-- every later table uses. Tables live in `public`; functions in `api`.

create schema if not exists api;

-- now() rounded UP to the millisecond. Every created_at/updated_at is written through it,
-- so a change made after a client recorded its sync time always sorts after that time,
-- and the API's millisecond output is the stored value exactly (docs/DECISIONS.md).
create function api.now_ms() returns timestamptz
language sql stable parallel safe as $$
  select case when date_trunc('milliseconds', t) = t then t
              else date_trunc('milliseconds', t) + interval '1 millisecond' end
  from (select now() as t) as clock
$$;

-- Names shared by every process, kept in one place:
--   invalidate_channel  NOTIFY channel the server LISTENs on; payloads 'key:<sha256 hex>'
--                       (a key was created or revoked) and 'store:<uuid>' (plan or rate
--                       limit changed).
--   events_channel      NOTIFY channel that wakes the dispatchers after outbox rows
--                       (events, notifications) are committed.
--   key_prefix          the fixed prefix of live API keys.
create function api.config(name text) returns text
language sql immutable parallel safe as $$
  select case name
    when 'invalidate_channel' then 'storeapi_invalidate'
    when 'events_channel' then 'storeapi_events'
    when 'key_prefix' then 'sk_live_'
  end
$$;
comment on function api.config(text) is
  'storeapi constants: invalidate_channel = storeapi_invalidate (payload key:<sha256 hex> | store:<uuid>), events_channel = storeapi_events, key_prefix = sk_live_';

-- What each plan includes. rpm is the default rate (a store may override it);
-- max_keys counts active (not revoked, not expired) keys. Free has no API access.
create function api.plan_limits(plan text, out rpm integer, out max_keys integer)
language sql immutable parallel safe as $$
  select case plan when 'pro' then 60 when 'advanced' then 300 else 0 end,
         case plan when 'pro' then 5 when 'advanced' then 20 else 0 end
$$;

-- Value sets. Those the spec lists are exact; the others (marked "chosen") are this
-- project's choice where the spec says "not shown" (docs/DECISIONS.md).
create domain currency_code as text check (value ~ '^[A-Z]{3}$');
create domain plan_name as text check (value in ('free', 'pro', 'advanced'));
create domain access_level as text check (value in ('none', 'read', 'write'));
create domain api_scope as text check (value in (
  'orders:read', 'orders:write', 'bookings:read', 'bookings:write',
  'products:read', 'products:write', 'customers:read', 'customers:write'));
create domain order_status as text check (value in (
  'pending', 'pending_payment', 'captured', 'completed', 'canceled', 'failed',
  'confirmed', 'refunded', 'draft'));
create domain fulfillment_status as text check (value in (
  'pending', 'confirmed', 'processing', 'ready', 'shipped', 'delivered', 'canceled',
  'returned', 'fulfilled'));
create domain order_channel as text check (value in (
  'storefront', 'marketplace', 'platform', 'dashboard'));
create domain product_type as text check (value in (
  'physical', 'digital', 'consulting', 'webinar'));
create domain product_status as text check (value in (
  'pending', 'approved', 'deleted', 'archived', 'featured', 'in_review', 'draft'));
create domain discount_type as text check (value in ('percentage', 'fixed'));
create domain booking_status as text check (value in (
  'pending', 'accepted', 'canceled', 'initiated'));
-- chosen
create domain customer_source as text check (value in (
  'storefront', 'import', 'dashboard', 'api'));
create domain email_status as text check (value in (
  'subscribed', 'unsubscribed', 'bounced', 'pending'));
create domain stock_mode as text check (value in ('set', 'adjust'));
create domain stock_source as text check (value in ('api', 'dashboard', 'import', 'seed'));

-- An order address exactly as the API renders it: ten string fields, line2 may be null,
-- nothing else. A single expression (no subquery) so the planner inlines it: it runs on
-- every insert and update of an order.
create function api.is_address(a jsonb) returns boolean
language sql immutable parallel safe as $$
  select coalesce(jsonb_typeof(a) = 'object'
     and a - array['first_name', 'last_name', 'phone', 'line1', 'line2', 'city', 'state',
                   'postal_code', 'country', 'country_code'] = '{}'::jsonb
     and jsonb_typeof(a -> 'first_name') = 'string'
     and jsonb_typeof(a -> 'last_name') = 'string'
     and jsonb_typeof(a -> 'phone') = 'string'
     and jsonb_typeof(a -> 'line1') = 'string'
     and jsonb_typeof(a -> 'line2') in ('string', 'null')
     and jsonb_typeof(a -> 'city') = 'string'
     and jsonb_typeof(a -> 'state') = 'string'
     and jsonb_typeof(a -> 'postal_code') = 'string'
     and jsonb_typeof(a -> 'country') = 'string'
     and jsonb_typeof(a -> 'country_code') = 'string', false)
$$;
