-- Stored documents (issue 11): each resource keeps its API JSON as the read endpoints
-- return it, so a read is an index lookup returning stored text instead of a rendering
-- (docs/DECISIONS.md, "Reads: stored documents"). Only the render triggers of
-- sql/functions/10_render.sql write these columns; that file also fills them (for rows
-- written before it, and again whenever the rendering changes). Null only until then,
-- inside the same `migrate` transaction.
--
-- Storage: kept in the row, uncompressed, up to a row of about 8 KB (toast_tuple_target):
-- pglz on every write and a decompression on every read cost more CPU than the pages
-- they save; a larger document is still compressed and moved out of line as usual.
alter table orders add column doc text;
alter table products add column doc text;
alter table customers add column doc text;
alter table bookings add column doc text;

alter table orders alter column doc set storage main, set (toast_tuple_target = 8160);
alter table products alter column doc set storage main, set (toast_tuple_target = 8160);
alter table customers alter column doc set storage main, set (toast_tuple_target = 8160);
alter table bookings alter column doc set storage main, set (toast_tuple_target = 8160);

-- Renamed api.stored_product_json (sql/functions/40_writes.sql): it now reads the stored
-- document instead of rendering.
drop function if exists api.current_product_json(uuid, uuid);
