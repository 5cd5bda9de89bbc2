-- keyed_adjust.sql's statements sent in one pipeline (one round trip, as the server sends
-- its one statement): the same rows written, the per-statement round trips of the
-- floor taken out. A pipeline cannot \gset, so each statement finds the target's ids in
-- keyed_floor_targets itself (a primary-key lookup in a 200-row table) and makes the
-- key itself (the same in each: the transaction's start and the client).
--
-- What a change of design would save, measured by leaving its part out (bench/load/floors/run
-- keyed_adjust_pipelined+product=1, ...):
--   product=2  the product's row rewritten with its document, updated_at moved: its 4
--              indexes get an entry each (today)
--   product=1  the same row rewritten but updated_at not moved, as if no index held it:
--              a HOT update (no index entry) when the page has room
--   product=0  the product's row not written at all (a stored document that does not
--              show the variants' stock); the product is still locked
--   event=1    the event's payload the product's full snapshot with its previous
--              attributes (today); event=0: a payload of the stored answer's size (the
--              variant alone)
-- setup: keyed_adjust
-- defaults: product=2 event=1
\set n random(1, :variants)
\startpipeline
begin;
select pg_advisory_xact_lock_shared(hashtext('storeapi.store_fence'), hashtext(t.store_id::text)) is null as fence_lock,
       pg_try_advisory_xact_lock(hashtextextended(t.store_id::text || to_char(now(), 'YYYYMMDDHH24MISSUS') || '-' || :client_id::text, 0)) as key_lock,
       exists (select from store_fences f where f.store_id = t.store_id and f.writes_fenced) as fenced
  from keyed_floor_targets t where t.n = :n;
select k.state, k.fingerprint, k.response_status, k.response_body from keyed_floor_targets t, idempotency_keys k
 where t.n = :n and k.store_id = t.store_id and k.key = to_char(now(), 'YYYYMMDDHH24MISSUS') || '-' || :client_id::text;
select lv.stock from keyed_floor_targets t, products p, variants lv
 where t.n = :n and p.store_id = t.store_id and p.id = t.product_id and p.deleted_at is null
   and lv.store_id = t.store_id and lv.id = t.variant_id and lv.product_id = p.id and lv.deleted_at is null
   for no key update of p, lv;
insert into stock_movements (store_id, variant_id, product_id, mode, quantity, delta, before, after, note, source, api_key_id)
select t.store_id, t.variant_id, t.product_id, 'adjust', 1, 1, 1000000, 1000001, null, 'api', null
  from keyed_floor_targets t where t.n = :n;
update variants v set stock = stock + 1, updated_at = api.now_ms()
  from keyed_floor_targets t where t.n = :n and v.store_id = t.store_id and v.id = t.variant_id;
\if :product = 2
update products p set updated_at = api.now_ms(),
       doc = replace(p.doc, split_part(p.doc, '"updated_at":"', -1), api.ts(api.now_ms()) || '"}')
  from keyed_floor_targets t where t.n = :n and p.store_id = t.store_id and p.id = t.product_id;
\elif :product = 1
update products p set doc = replace(p.doc, split_part(p.doc, '"updated_at":"', -1), api.ts(api.now_ms()) || '"}')
  from keyed_floor_targets t where t.n = :n and p.store_id = t.store_id and p.id = t.product_id;
\endif
insert into events (store_id, id, type, payload, created_at, trace_id)
select t.store_id, gen_random_uuid(), 'product.updated', case when :event = 1 then t.payload else t.answer end::json,
       api.now_ms(), null
  from keyed_floor_targets t where t.n = :n;
insert into idempotency_keys (store_id, key, fingerprint, state, started_at, response_status, response_body, completed_at)
select t.store_id, to_char(now(), 'YYYYMMDDHH24MISSUS') || '-' || :client_id::text, md5(now()::text) || md5(t.product_id::text), 'completed',
       api.now_ms(), 200, t.answer, api.now_ms()
  from keyed_floor_targets t where t.n = :n;
commit;
\endpipeline
