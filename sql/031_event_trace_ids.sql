-- Trace ids on the outbox (issue 13): the W3C trace id of the request whose write emitted
-- an event or queued an e-mail, so that the webhook delivery (a traceparent header) and
-- the mail (an X-Trace-Id header) can be tied back to that request and its access-log
-- line. Null for rows not written by a request (the admin tool, the dispatcher's own
-- e-mails). No check constraint: the server writes only ids it validated or made
-- (src/common/trace_context.hpp), and a regex check would cost every write.
alter table events add column trace_id text;
alter table notifications add column trace_id text;
