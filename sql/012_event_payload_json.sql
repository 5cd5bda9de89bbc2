-- The event payload as the bytes it was built with (issue 11): `json`, not `jsonb`, so
-- data.object is the write's response document byte for byte (api.emit_event builds the
-- payload by concatenation around it, sql/functions/20_outbox.sql) and the dispatcher
-- sends those bytes. jsonb parsed every rendered document again (jsonb_in) and printed it
-- in its own key order and spacing. json still lets readers use -> and ->>.
-- The old object check parsed the payload once more; api.emit_event is its only writer
-- and always builds an object.
alter table events drop constraint events_payload_check;
alter table events alter column payload type json using payload::text::json;

-- Payloads and stored responses stay compressed (pglz, the default): `storage external`
-- was measured and saved no CPU per write, the pglz time coming back as a third more WAL
-- (bench/RESULTS.md, "Writes: the same bytes, built once").

-- Their JSON arguments and results are now text (jsonb before); the new definitions are
-- in sql/functions/20_outbox.sql and 40_writes.sql.
drop function api.emit_event(uuid, text, jsonb, jsonb);
drop function api.previous_attributes(text, text);
