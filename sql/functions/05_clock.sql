-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes; first
-- defined by sql/001_foundation.sql. Change a function here, not in a new migration.

-- The transaction's time rounded UP to the millisecond (sql/001_foundation.sql says why).
-- One expression without FROM, so the planner inlines it: the first definition read
-- now() through a sub-select, which cannot be inlined, so every call — several per write:
-- updated_at, the event, the idempotency row, the product trigger — went through fmgr_sql,
-- parsing and planning its body again each time (11.5 % of a keyed stock write's backend
-- CPU, bench/RESULTS.md). Adding 999 µs before truncating is rounding up: now() has
-- microsecond precision.
create or replace function api.now_ms() returns timestamptz
language sql stable parallel safe as $$
  select date_trunc('milliseconds', now() + interval '999 microseconds')
$$;
