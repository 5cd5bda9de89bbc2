-- A product's stored document is compressed with lz4, in the row, once the row passes
-- about 2 KB (docs/DECISIONS.md, "Reads: stored documents"). Every stock or price change
-- rewrites the product's row with its whole document (the reads return it as stored): the
-- largest record of a keyed stock write's WAL (bench/RESULTS.md, "Writes: each document's
-- bytes once"). A document of several variants repeats their keys, the product's id and
-- their timestamps, which lz4 compresses in microseconds and decompresses at memory speed;
-- the bytes read back are the bytes written.
--
-- PostgreSQL compresses no row under about 2 KB (TOAST_TUPLE_THRESHOLD, compiled in): a
-- product of one or two variants keeps its document as it was. toast_tuple_target 2032,
-- that threshold: a row above it is compressed until it is under it, the largest value
-- first, which is the document; the other variable-length columns are `main` as the
-- document is, since with `extended` a row above the target first has them compressed
-- (pglz) and moved out of line (the trace id of every event went to the TOAST table that
-- way: sql/038_compressed_payloads.sql). Rows written before keep their form until their
-- next change; both read the same.
-- Expand-only: catalog changes, no rewrite; the previous release's statements are unchanged.
alter table products
  alter column doc set compression lz4,
  alter column name set storage main,
  alter column slug set storage main,
  alter column "type" set storage main,
  alter column status set storage main,
  alter column tags set storage main,
  alter column images set storage main,
  set (toast_tuple_target = 2032);
