-- The floor of a keyed stock adjust (keyed_adjust.sql) runs on a copy of a database that
-- bench/load/dbcost seeded and migrated (bench/load/floors/run makes it from SOURCE_DATABASE):
-- the real products, variants, stock_movements, events and idempotency_keys, with every
-- index, constraint, foreign key, partition and storage setting they have, so that each
-- row the floor writes is as wide, compressed and indexed as the server's. Only the
-- triggers of products and variants are disabled in the copy: they are the rendering (a
-- product's document made again, api.variant_changed), which the floor replaces by the
-- statements a client would send with the results in hand.
--
-- keyed_floor_targets: the variants the writes spread over, as bench/load/dbcost picks them
-- (`order by v.id limit VARIANTS`, 200 here: the floor's VARIANTS takes the first N), each
-- with the event payload and the stored answer of a real keyed adjust of it (run once
-- here through api.change_stock, triggers on): the floor inserts bytes of the same size
-- and content. Kept uncompressed in the row (storage plain), so that the floor's inserts
-- compress them afresh, as the server's do.
drop table if exists keyed_floor_targets;
create table keyed_floor_targets (n integer primary key, store_id uuid not null, product_id uuid not null,
                                  variant_id uuid not null, answer text, payload text);
alter table keyed_floor_targets alter column answer set storage plain, alter column payload set storage plain;
insert into keyed_floor_targets (n, store_id, product_id, variant_id)
select row_number() over (order by v.id), v.store_id, v.product_id, v.id
  from variants v join products p on p.store_id = v.store_id and p.id = v.product_id
 where v.store_id = (select id from stores where slug = 'dbcost')
   and v.deleted_at is null and p.deleted_at is null and v.stock is not null
 order by v.id limit 200;
update variants set stock = 1000000 where (store_id, id) in (select store_id, variant_id from keyed_floor_targets);
update keyed_floor_targets t
   set answer = (api.change_stock(t.store_id, t.product_id, t.variant_id, 'adjust', 1, null, null)).body;
update keyed_floor_targets t
   set payload = (select e.payload::text from events e
                   where e.store_id = t.store_id and e.type = 'product.updated'
                     and e.payload -> 'data' -> 'object' ->> 'id' = t.product_id::text
                   order by e.created_at desc limit 1);
alter table products disable trigger user;
alter table variants disable trigger user;
vacuum analyze keyed_floor_targets, products, variants;
