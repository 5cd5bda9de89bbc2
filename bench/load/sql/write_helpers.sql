-- What three helpers of every write cost per call, before and
-- after (bench/RESULTS.md, "Writes: the same bytes, built once"). Standalone: run it in any scratch database
-- (it makes and drops schema m), then time m.run_now / m.run_ev / m.run_prev for 'old' and 'new',
-- alternating, e.g.
--   for r in 1 2 3; do for k in old new; do
--     psql "$URL" -X -qAt -c '\timing on' -c "select m.run_now('$k', 20000)" | grep Time; done; done
-- now_old is sql/001_foundation.sql's api.now_ms (a sub-select: not inlined, fmgr_sql
-- parses and plans it on every statement), now_new sql/functions/05_clock.sql's. run_ev
-- inserts an event payload around a 1.6 KB document as the old api.emit_event did (jsonb:
-- the document parsed, a check parsing it again, pglz) and as the new one does
-- (concatenated text into a json column). run_prev: api.previous_attributes
-- with jsonb (old) and with json_each (new, sql/functions/40_writes.sql).
drop schema if exists m cascade; create schema m;
create function m.now_old() returns timestamptz language sql stable parallel safe as $$
  select case when date_trunc('milliseconds', t) = t then t
              else date_trunc('milliseconds', t) + interval '1 millisecond' end
  from (select now() as t) as clock $$;
create function m.now_new() returns timestamptz language sql stable parallel safe as $$
  select date_trunc('milliseconds', now() + interval '999 microseconds') $$;
create table m.t (a timestamptz, b timestamptz);
create table m.ej (p jsonb not null check (jsonb_typeof(p) = 'object'));
create table m.et (p json not null);
-- a ~2 KB product-like document
create table m.doc as select '{"id":"' || gen_random_uuid() || '","object":"product","name":"Stoneware Mug","variants":[' ||
  string_agg('{"id":"' || gen_random_uuid() || '","object":"variant","title":"Variant ' || i || '","price":"12.50","stock":' || i || ',"sku":"SKU-' || i || '"}', ',') || '],"updated_at":"2026-11-21T20:39:02.123Z"}' as d
  from generate_series(1, 12) i;
create function m.run_now(kind text, n int) returns void language plpgsql as $$
begin
  for i in 1..n loop
    if kind = 'old' then insert into m.t values (m.now_old(), m.now_old());
    else insert into m.t values (m.now_new(), m.now_new()); end if;
  end loop;
end $$;
create function m.run_ev(kind text, n int) returns void language plpgsql as $$
declare d text := (select d from m.doc); v_id uuid := gen_random_uuid(); s uuid := gen_random_uuid();
begin
  for i in 1..n loop
    if kind = 'old' then
      insert into m.ej values (jsonb_build_object('id', 'evt_' || replace(v_id::text, '-', ''), 'object', 'event',
        'type', 'product.updated', 'created_at', '2026-11-21T20:39:02.123Z', 'store_id', s,
        'data', jsonb_build_object('object', d::jsonb, 'previous_attributes', '{"stock":1}'::jsonb)));
    else
      insert into m.et values (('{"id":"evt_' || replace(v_id::text, '-', '') || '","object":"event","type":"product.updated'
        || '","created_at":"2026-11-21T20:39:02.123Z","store_id":"' || s || '","data":{"object":' || d
        || ',"previous_attributes":' || '{"stock":1}'::jsonb::text || '}}')::json);
    end if;
  end loop;
end $$;
create or replace function m.prev_old(old_json text, new_json text) returns jsonb
language plpgsql immutable parallel safe as $$
declare
  v_new jsonb := new_json::jsonb;
begin
  return (select coalesce(jsonb_object_agg(o.key, o.value), '{}')
            from jsonb_each(old_json::jsonb) o
           where o.value is distinct from (v_new -> o.key));
end $$;
create or replace function m.prev_new(old_json text, new_json text) returns text
language plpgsql immutable parallel safe as $$
begin
  return (select '{' || coalesce(string_agg(to_json(o.key)::text || ':' || o.value::text, ',' order by o.ordinality), '') || '}'
            from json_each(old_json::json) with ordinality o
            left join json_each(new_json::json) n on n.key = o.key
           where n.value::text is distinct from o.value::text);
end $$;
create or replace function m.run_prev(kind text, n int) returns void language plpgsql as $$
declare d text := (select d from m.doc); d2 text := replace(d, '"stock":3,', '"stock":4,'); x text;
begin
  d2 := replace(d2, '2026-11-21T20:39:02.123Z', '2026-11-21T20:39:03.456Z');
  for i in 1..n loop
    if kind = 'old' then x := m.prev_old(d, d2)::text; else x := m.prev_new(d, d2); end if;
  end loop;
end $$;
