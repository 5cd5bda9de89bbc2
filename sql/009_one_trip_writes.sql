-- Writes in one statement, one transaction, one commit (issue 11): the idempotency key is
-- claimed and completed inside the write's transaction (sql/functions/30_idempotency.sql)
-- instead of being committed in progress by a statement of its own first. The functions
-- themselves now live in the repeatable files under sql/functions/, applied after this;
-- here go what those cannot do: the new answer type, and dropping the functions whose
-- signatures changed or that are gone.

-- What a keyed write statement answers: how the key was taken (run | replay | mismatch |
-- in_progress, api.claim_idempotency_key) and the HTTP status and body (null when
-- refused for the key).
create type api.write_answer as (outcome text, status integer, body text);

drop function api.take_idempotency_key(uuid, text, text, uuid);
drop function api.finish_write(uuid, text, api.write_result);
drop function api.reject_request(uuid, text, uuid, integer, text);
drop function api.release_idempotency_key(uuid, text, uuid);
drop function api.own_idempotency_key(uuid, text, uuid);
drop function api.fulfill_order(uuid, uuid, text, text, text, text, uuid);
drop function api.change_booking(uuid, uuid, text, text, uuid);
drop function api.update_variant(uuid, uuid, uuid, numeric, boolean, text, numeric, text, uuid);
drop function api.change_stock(uuid, uuid, uuid, text, integer, text, uuid, text, uuid);
