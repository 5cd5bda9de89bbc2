-- Undoes the `storage external` of sql/012_event_payload_json.sql (issue 11): measured in
-- one session (bench/RESULTS.md, "Writes: the same bytes, built once"), uncompressed
-- payloads and stored responses saved no PostgreSQL CPU per write — the pglz time came
-- back as WAL written — and added a third to the WAL per write (~6.6 KB -> ~9.9 KB for a
-- keyed stock adjust or a PATCH). Back to the default (pglz, out of line when large).
alter table events alter column payload set storage extended;
alter table idempotency_keys alter column response_body set storage extended;
