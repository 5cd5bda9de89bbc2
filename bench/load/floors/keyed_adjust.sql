-- The row work of a keyed stock adjust, as plain statements in one transaction (the
-- floor of bench/load/dbcost's adjust_key): what docs/spec and docs/DESIGN.md make such a
-- write store, on the real tables of a dbcost copy (keyed_adjust.setup.sql), with nothing
-- rendered or computed beyond it. In order: the store fence's shared advisory lock, the
-- key's try-lock, the fence row checked (the target's ids read by the same statement), the
-- key looked up (a fresh key: not found), the product and variant locked (product first),
-- the history row, the variant's stock (a HOT update), the product's row with its
-- updated_at moved (not HOT: products_updated indexes it, so all 4 indexes get an entry)
-- and its stored document as a new value of the same size and content (its last
-- updated_at, and the variant's when the variant moved it last, replaced: the
-- document's closing `"updated_at":"…"}`; lz4 in the row, as 039 stores it), the event
-- with a real adjust's payload (text made json: checked, as the server's and any json a
-- client sends are), the key with the real stored answer. The key grows with time (the
-- transaction's start and the client), as bench/load/requests.lua's keys of a run do, so
-- its index takes it at its right end.
-- setup: keyed_adjust
\set n random(1, :variants)
begin;
select t.store_id as store, t.product_id as product, t.variant_id as variant, k.key,
       pg_advisory_xact_lock_shared(hashtext('storeapi.store_fence'), hashtext(t.store_id::text)) is null as fence_lock,
       pg_try_advisory_xact_lock(hashtextextended(t.store_id::text || k.key, 0)) as key_lock,
       exists (select from store_fences f where f.store_id = t.store_id and f.writes_fenced) as fenced
  from keyed_floor_targets t, (select to_char(now(), 'YYYYMMDDHH24MISSUS') || '-' || :client_id::text as key) k
 where t.n = :n \gset
select state, fingerprint, response_status, response_body from idempotency_keys where store_id = :store and key = :key;
select lv.stock from products p, variants lv
 where p.store_id = :store and p.id = :product and p.deleted_at is null
   and lv.store_id = :store and lv.id = :variant and lv.product_id = p.id and lv.deleted_at is null
   for no key update of p, lv;
insert into stock_movements (store_id, variant_id, product_id, mode, quantity, delta, before, after, note, source, api_key_id)
values (:store::uuid, :variant::uuid, :product::uuid, 'adjust', 1, 1, 1000000, 1000001, null, 'api', null);
update variants set stock = stock + 1, updated_at = api.now_ms() where store_id = :store and id = :variant;
update products set updated_at = api.now_ms(),
       doc = replace(doc, split_part(doc, '"updated_at":"', -1), api.ts(api.now_ms()) || '"}')
 where store_id = :store and id = :product;
insert into events (store_id, id, type, payload, created_at, trace_id)
select :store::uuid, gen_random_uuid(), 'product.updated', t.payload::json, api.now_ms(), null
  from keyed_floor_targets t where t.n = :n;
insert into idempotency_keys (store_id, key, fingerprint, state, started_at, response_status, response_body, completed_at)
select :store::uuid, :key::text, md5(:key::text) || md5(:product::text), 'completed', api.now_ms(), 200, t.answer, api.now_ms()
  from keyed_floor_targets t where t.n = :n;
commit;
