-- Pods (docs/DECISIONS.md, "Pods"): a pod is a PostgreSQL cluster holding the data of the
-- stores placed on it. This database is the directory: it lists the pods, places each
-- store on one, and keeps the keys (a key is looked up before its store is known). It is
-- also the first pod, `main`, so a single database works as before with no new setting.
-- Every pod runs the same migrations; on a pod other than the directory these two
-- tables stay as migrated (one row, main) and `stores` holds copies of its stores' rows,
-- which the foreign keys of their data need.

-- url: the pod's primary (a multi-host URL for failover); null for main, which is the
-- directory's own database. replica_urls: its hot standbys, read like
-- STOREAPI_REPLICA_URLS. A URL may carry a password: only the owner role reads this table.
create table pods (
  name text primary key check (name ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  url text check ((name = 'main') = (url is null)),
  replica_urls text[] not null default '{}',
  created_at timestamptz(3) not null default api.now_ms()
);
revoke all on pods from public;
insert into pods (name) values ('main');

-- Where each store lives, and its placement's epoch: raised by every move, so that what
-- a node learned about the store (its pod, its last write position there) is known to be
-- of the store's current placement or not.
alter table stores
  add column pod text not null default 'main' references pods (name),
  add column placement_epoch bigint not null default 1 check (placement_epoch > 0);
create index stores_pod on stores (pod);

-- Per pod: the stores whose writes this pod refuses (writes_fenced: a move's cut-over, or
-- the store left it) and whose outbox its dispatcher leaves alone (dispatch_paused). No
-- row: the store is served normally. A move writes the source's row under an exclusive
-- lock that every write holds shared (api.claim_idempotency_key), so the fence waits for
-- the writes in flight and every later write sees it; the row also reaches the target
-- through the move's replication, which tells the mover that everything written before
-- the fence has arrived.
create table store_fences (
  store_id uuid primary key,
  epoch bigint not null check (epoch > 0),
  writes_fenced boolean not null,
  dispatch_paused boolean not null,
  updated_at timestamptz(3) not null default api.now_ms()
);
