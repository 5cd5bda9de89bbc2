-- An event's payload is stored compressed with lz4, in the row (docs/DECISIONS.md,
-- "Writes: each document's bytes once"). A product's event carries the whole document
-- and, in previous_attributes, its old variants, nearly the same bytes again: 3-7 KB that
-- sql/013_write_path_constraints.sql kept uncompressed because pglz cost 4.5 % of a stock
-- write's PostgreSQL time. lz4 compresses such a payload to about a third in a few
-- microseconds and decompresses at memory speed. The bytes read back are the bytes written
-- (the dispatcher sends them as they are).
--
-- toast_tuple_target is the row size above which PostgreSQL compresses (once a row passes
-- about 2 KB). Every variable-length column of the table is `main` (compressed, but kept
-- in the row): with `extended`, the default, a row above the target first moves its
-- other values of more than 24 bytes out of line — the trace id (32 hex digits) went to
-- the TOAST table, a row and an index entry more per write. Column compression and
-- toast_tuple_target are per partition (ALTER on the partitioned table does not reach the
-- partitions for them): each partition gets them here, and api.extend_outbox_partitions
-- gives them to the slots it creates (sql/functions/50_retention.sql), copying the
-- parent's columns. Rows written before keep their form; both read the same.
-- Expand-only: catalog changes, no rewrite; the previous release's statements are unchanged.
alter table events
  alter column payload set compression lz4,
  alter column "type" set storage main,
  alter column trace_id set storage main;

do $$
declare
  v_partition regclass;
begin
  for v_partition in select inhrelid::regclass from pg_inherits where inhparent = 'events'::regclass loop
    execute format('alter table %s alter column payload set compression lz4, alter column "type" set storage main,'
                   ' alter column trace_id set storage main, set (toast_tuple_target = 128)', v_partition);
  end loop;
end $$;
