-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes. Change
-- a function here, not in a new migration; a changed signature needs its old one dropped
-- in a numbered migration first.
--
-- Idempotency keys (docs/DECISIONS.md, "Idempotency"): a keyed write is ONE statement in
-- one transaction, so one round trip and one commit:
--
--   select a.outcome, a.status, a.body
--     from api.claim_idempotency_key($store, $key, $fingerprint) c,
--          lateral api.complete_write($store, $key, $fingerprint, c,
--                                     case when c.outcome = 'run' then api.<write>(...) end) a
--
-- The claim comes first (the lateral call needs its row), the write runs only when the
-- claim says 'run' (CASE evaluates one branch), and the key row is written completed,
-- with the answer, in the write's own transaction. Nothing about the key is committed
-- before the work: a failure at any point — a 5xx, a lost connection, kill -9 of the
-- server, a restart of PostgreSQL — rolls everything back together and leaves the key
-- free, so the retry runs for real at once; a commit stores the answer with the work, so
-- the retry replays it and nothing runs twice. Without an Idempotency-Key, $key and
-- $fingerprint are null and the write just runs.

-- Takes the key for this transaction, or says why not. outcome:
--   run          free: never used, expired (taken over 24 h ago, not yet purged), or left
--                in progress over 60 s ago by a server older than this file
--   replay       completed earlier with the same fingerprint: status and body
--   mismatch     the key was used for another request (body or endpoint)
--   in_progress  a transaction running the same key right now, or a row left in progress
--                under 60 s ago by an older server
--   fenced       the store's writes are held on this database (store_fences: a move
--                is cutting it over, or it has left this pod); nothing ran
-- A concurrent request for the same key must be refused at once, never wait: it would
-- wait on the key row's unique index until the first commits. So the key is claimed with
-- a transaction-level advisory TRY-lock on a 64-bit hash of (store, key), which never
-- waits and is released by the commit or the rollback, whatever ends the transaction.
--
-- Every write of the API comes here first, so this is where a move's fence holds it: the
-- write takes the store's fence lock shared until its commit (the two-key form, apart
-- from the one-key locks above), and the mover takes it exclusive to write the fence
-- (api.fence_store_writes), so the fence waits for the writes in flight and a write
-- granted the lock after it sees the fence row (a volatile function's next query takes
-- a new snapshot).
create or replace function api.claim_idempotency_key(p_store uuid, p_key text, p_fingerprint text)
returns api.write_answer
language plpgsql volatile as $$
declare
  k idempotency_keys;
  v_done boolean;
begin
  -- Assigned, not PERFORMed: no executor start-up ("Calls for their effect" in
  -- 40_writes.sql); the query below still takes its snapshot after the lock is granted.
  v_done := pg_advisory_xact_lock_shared(api.fence_lock_class(), hashtext(p_store::text)) is null;
  if exists (select from store_fences f where f.store_id = p_store and f.writes_fenced) then
    return ('fenced', null, null)::api.write_answer;
  end if;
  if p_key is null then
    return ('run', null, null)::api.write_answer;
  end if;
  if not pg_try_advisory_xact_lock(hashtextextended(p_store::text || p_key, 0)) then
    return ('in_progress', null, null)::api.write_answer;
  end if;
  select * into k from idempotency_keys where store_id = p_store and key = p_key;
  if not found or k.started_at < now() - interval '24 hours' then
    return ('run', null, null)::api.write_answer;
  elsif k.fingerprint <> p_fingerprint then
    return ('mismatch', null, null)::api.write_answer;
  elsif k.state = 'completed' then
    return ('replay', k.response_status, k.response_body)::api.write_answer;
  elsif k.started_at >= now() - interval '60 seconds' then
    return ('in_progress', null, null)::api.write_answer;
  end if;
  return ('run', null, null)::api.write_answer;
end $$;

-- The first key of the store fence's two-key advisory lock.
create or replace function api.fence_lock_class() returns integer
language sql immutable parallel safe as $$ select hashtext('storeapi.store_fence') $$;

-- The mover's side of the fence: waits for the store's writes in flight (each holds the
-- lock shared until its commit), then writes the fence row in the caller's transaction;
-- writes that start after its commit are refused ('fenced').
create or replace function api.fence_store_writes(p_store uuid, p_epoch bigint, p_dispatch_paused boolean)
returns void
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(api.fence_lock_class(), hashtext(p_store::text));
  insert into store_fences (store_id, epoch, writes_fenced, dispatch_paused)
  values (p_store, p_epoch, true, p_dispatch_paused)
  on conflict (store_id) do update
    set epoch = excluded.epoch, writes_fenced = true, dispatch_paused = excluded.dispatch_paused,
        updated_at = api.now_ms();
end $$;

-- The statement's answer: the claim's when it refused or replays; else the write's
-- result r, stored under the key (when there is one) in the same transaction.
create or replace function api.complete_write(p_store uuid, p_key text, p_fingerprint text,
                                              p_claim api.write_answer, r api.write_result)
returns api.write_answer
language plpgsql volatile as $$
begin
  if p_claim.outcome <> 'run' then
    return p_claim;
  end if;
  if p_key is not null then
    insert into idempotency_keys (store_id, key, fingerprint, state, started_at, response_status, response_body,
                                  completed_at)
    values (p_store, p_key, p_fingerprint, 'completed', api.now_ms(), r.status, r.body, api.now_ms())
    on conflict (store_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'completed', owner_token = null,
          started_at = excluded.started_at, response_status = excluded.response_status,
          response_body = excluded.response_body, completed_at = excluded.completed_at;
  end if;
  return ('run', r.status, r.body)::api.write_answer;
end $$;

-- Deletes up to p_limit keys taken over 24 h ago (completed or abandoned); returns how
-- many. The server calls it periodically until it deletes fewer than p_limit.
create or replace function api.purge_idempotency_keys(p_limit integer) returns integer
language sql volatile as $$
  with doomed as (
    select store_id, key from idempotency_keys
     where started_at < now() - interval '24 hours'
     order by started_at
     limit p_limit
       for update skip locked
  ), gone as (
    delete from idempotency_keys k using doomed d
     where k.store_id = d.store_id and k.key = d.key
    returning 1
  )
  select count(*)::integer from gone
$$;
