-- One transaction, one commit: a row updated, a history row, a 2 KB event and an
-- idempotency result inserted (the floor of a keyed stock adjust).
\set n random(1, 100000)
begin;
update floor_rows set stock = stock + 1, updated_at = now() where store_id = 1 and id = :n;
insert into floor_history (store_id, row_id, delta) values (1, :n, 1);
insert into floor_events (store_id, payload) values (1, repeat(md5(:n::text), 64));
insert into floor_keys (store_id, key, body) values (1, 'k-' || :client_id || '-' || random(), repeat(md5(:n::text), 16));
commit;
