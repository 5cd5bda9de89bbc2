-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes. A
-- changed signature needs its old one dropped in a numbered migration first.
--
-- A write's error answer is kept as its body, {"code","param","message"}: the body a SQL
-- write function returns (api.rejection, sql/functions/40_writes.sql) and the one stored
-- under an Idempotency-Key (response_body, the same form since the first release). The
-- server wraps those fields into the error envelope with the answering request's id
-- (src/api/writes/write.cpp); the write's statement hands them over apart from the body
-- (src/api/writes/write_statements.cpp), so the server never parses the body back.

-- The fields of an error body: all null for a body that is not JSON (a damaged row: the
-- server answers 500 and logs the body), or a field that is absent or null. Called only
-- for an answer of status 400 or more; the exception block (a subtransaction) is entered
-- only then.
create or replace function api.error_fields(p_body text, out code text, out param text, out message text)
language plpgsql immutable parallel safe as $$
declare
  v_body json;
begin
  v_body := p_body::json;
  code := v_body ->> 'code';
  param := v_body ->> 'param';
  message := v_body ->> 'message';
exception when data_exception then
  code := null;
  param := null;
  message := null;
end $$;
