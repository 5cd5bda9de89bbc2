-- Stores, the people who run them, and their API keys.

-- A store's id is its store_id: every other table carries store_id referencing it.
create table stores (
  id uuid primary key default gen_random_uuid(),
  name text not null check (name <> ''),
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  url text not null check (url <> ''),
  currency currency_code not null,
  locale text not null check (locale ~ '^[a-z]{2}(-[A-Z]{2})?$'),
  plan plan_name not null,
  -- Per-store override of the plan's requests per minute; null = the plan's rate.
  rate_limit_rpm integer check (rate_limit_rpm > 0),
  owner_email text not null check (owner_email like '%_@_%'),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  check (updated_at >= created_at)
);

-- Dashboard users. Access is per resource; the owner holds write on everything.
create table staff_members (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  email text not null check (email like '%_@_%'),
  is_owner boolean not null default false,
  orders_access access_level not null default 'none',
  bookings_access access_level not null default 'none',
  products_access access_level not null default 'none',
  customers_access access_level not null default 'none',
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  check (updated_at >= created_at),
  check (not is_owner or (orders_access = 'write' and bookings_access = 'write'
                          and products_access = 'write' and customers_access = 'write'))
);
create unique index staff_members_email on staff_members (store_id, lower(email));
create unique index staff_members_one_owner on staff_members (store_id) where is_owner;

-- Only the SHA-256 (hex) of a key is kept; the key itself is shown once at creation.
-- access records what was chosen (read = the four :read scopes, full = the four :write,
-- custom = scopes as chosen, implied :read not added).
create table api_keys (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  name text not null check (name <> ''),
  key_hash text not null check (key_hash ~ '^[0-9a-f]{64}$'),
  prefix text not null check (char_length(prefix) = 12),
  access text not null check (access in ('read', 'full', 'custom')),
  scopes api_scope[] not null check (cardinality(scopes) > 0),
  expires_at timestamptz(3),
  revoked_at timestamptz(3),
  created_by uuid not null,
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  foreign key (store_id, created_by) references staff_members (store_id, id),
  check (updated_at >= created_at)
);
-- The one lookup made before the store is known: authentication by hash.
create unique index api_keys_hash on api_keys (key_hash);
create index api_keys_created on api_keys (store_id, created_at, id);
