-- The floors' tables (bench/load/floors/run): what the cheapest possible storeapi read or
-- write would touch, without any rendering or logic. 100,000 stored 2 KB documents of one
-- store with the (store_id, created_at, id) index the pages walk, stored like the real
-- documents (sql/010_stored_documents.sql: in the row, uncompressed); a row to update and
-- the three inserts of a keyed write (history row, 2 KB event, idempotency result).
drop table if exists floor_docs, floor_rows, floor_history, floor_events, floor_keys;
create table floor_docs (store_id integer, id bigint, created_at timestamptz not null, doc text not null,
                         primary key (store_id, id));
alter table floor_docs alter column doc set storage main, set (toast_tuple_target = 8160);
insert into floor_docs
select 1, g, timestamptz '2026-01-01' + make_interval(secs => g), repeat(md5(g::text), 64)
  from generate_series(1, 100000) g;
create index on floor_docs (store_id, created_at, id);

create table floor_rows (store_id integer, id bigint, stock bigint not null, updated_at timestamptz not null,
                         primary key (store_id, id));
insert into floor_rows select 1, g, 1000000, now() from generate_series(1, 100000) g;
create table floor_history (store_id integer, id bigserial, row_id bigint, delta integer, at timestamptz default now(),
                            primary key (store_id, id));
create table floor_events (store_id integer, id bigserial, payload text, at timestamptz default now(),
                           primary key (store_id, id));
create table floor_keys (store_id integer, key text, body text, at timestamptz default now(),
                         primary key (store_id, key));
vacuum analyze;
