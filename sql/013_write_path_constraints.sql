-- Less work per write on the rows every write adds (issue 11; docs/DECISIONS.md, "Writes:
-- what the write tables check"). Measured on a keyed stock adjust: each CHECK constraint
-- is parsed from its stored text and planned again by every statement that inserts into
-- its table (ExecConstraints: stringToNode, ExecPrepareExpr), and each foreign key is a
-- query of its own after the statement (an index probe and a KEY SHARE lock on the parent
-- row); together about 10 % of a stock write's PostgreSQL time.
--
-- stock_movements has two writers, api.change_stock and the seed: the function inserts
-- the variant and product it has just locked (live, and never deleted: deletion is soft),
-- the api key the request was authenticated with (keys are never deleted either), and
-- computes before, after and delta itself from the locked row; the server limits the note
-- to 200 characters. The seed writes one consistent `set` per tracked variant it created.
alter table stock_movements
  drop constraint stock_movements_store_id_variant_id_fkey,
  drop constraint stock_movements_store_id_product_id_fkey,
  drop constraint stock_movements_store_id_api_key_id_fkey,
  drop constraint stock_movements_after_check,
  drop constraint stock_movements_before_check,
  drop constraint stock_movements_check,
  drop constraint stock_movements_check1,
  drop constraint stock_movements_note_check;

-- idempotency_keys has one writer, api.complete_write (sql/functions/30_idempotency.sql):
-- the store is the caller's, the key's format (1 to 255 printable ASCII characters) is
-- checked by the server, and every row it writes is completed, with the answer's status
-- and body.
alter table idempotency_keys
  drop constraint idempotency_keys_store_id_fkey,
  drop constraint idempotency_keys_check,
  drop constraint idempotency_keys_key_check,
  drop constraint idempotency_keys_response_status_check,
  drop constraint idempotency_keys_state_check;

-- An event's payload (a product's is 3-4 KB: the document and the old variants) was
-- compressed by pglz on every insert, about 4.5 % of a stock write; kept in the row
-- uncompressed up to a row of about 8 KB instead, as the stored documents are
-- (sql/010_stored_documents.sql). This costs WAL (the payload's compressed bytes become
-- its full bytes) but no out-of-line TOAST rows: `storage external`, measured before
-- (sql/012_event_payload_json.sql), moved them to the TOAST table and saved no CPU.
alter table events alter column payload set storage main, set (toast_tuple_target = 8160);
