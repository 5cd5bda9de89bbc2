-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes. The
-- outbox's time slots (sql/033_outbox_partitions.sql, docs/DECISIONS.md "Retention"):
-- creating them ahead, and finding those that may go. Detaching and dropping is the
-- dispatcher's (src/dispatch/partitions.cpp): DETACH PARTITION CONCURRENTLY cannot run
-- inside a function's transaction.

-- The tables partitioned by slot; a slot's partition of table T is named T_<slot name>.
create or replace function api.outbox_tables() returns text[]
language sql immutable as $$
  select array['webhook_delivery_attempts', 'webhook_deliveries', 'events', 'notifications']
$$;

-- Creates the slots from the newest one's end until p_ahead after now, each ending on a
-- multiple of p_width since the epoch (so a day's slots run midnight to midnight UTC), and
-- returns how many. A new partition is made as a table of its own and then attached:
-- ATTACH takes a SHARE UPDATE EXCLUSIVE lock on the parent, which writes pass, where
-- CREATE TABLE ... PARTITION OF would take an ACCESS EXCLUSIVE one.
-- SECURITY DEFINER: the dispatchers call it as the runtime role, which may create nothing
-- (docs/DECISIONS.md "Roles"); the partitions are the owner's, and the runtime role's
-- grants on them are the owner's default privileges (src/admin/migrations/roles.cpp). The fixed
-- search_path keeps a caller's objects out of the owner's statements.
create or replace function api.extend_outbox_partitions(p_width interval, p_ahead interval) returns integer
language plpgsql volatile security definer set search_path = public, pg_temp as $$
declare
  v_width double precision := extract(epoch from p_width);
  v_start timestamptz;
  v_end timestamptz;
  v_name text;
  v_table text;
  v_created integer := 0;
begin
  select max(ends_at) into v_start from outbox_partitions;
  v_start := coalesce(v_start, now());
  while v_start < now() + p_ahead loop
    v_end := to_timestamp((floor(extract(epoch from v_start) / v_width) + 1) * v_width);
    -- Away longer than a slot (no dispatcher ran): one slot covers the gap up to now, in
    -- which no row can be (writes had no partition), rather than a slot per width.
    if v_end < now() - p_width then
      v_end := to_timestamp(floor(extract(epoch from now()) / v_width) * v_width);
    end if;
    v_name := 'p' || to_char(v_start at time zone 'UTC', 'YYYYMMDD"t"HH24MISS');
    insert into outbox_partitions (name, starts_at, ends_at) values (v_name, v_start, v_end);
    foreach v_table in array api.outbox_tables() loop
      execute format('create table %I (like %I including defaults including constraints including storage)',
                     v_table || '_' || v_name, v_table);
      if v_table = 'events' then
        -- sql/013_write_path_constraints.sql: payloads stay in the row up to about 8 KB.
        execute format('alter table %I set (toast_tuple_target = 8160)', v_table || '_' || v_name);
      end if;
      execute format('alter table %I attach partition %I for values from (%L) to (%L)',
                     v_table, v_table || '_' || v_name, v_start, v_end);
    end loop;
    v_start := v_end;
    v_created := v_created + 1;
  end loop;
  return v_created;
end $$;

-- Whether a slot still has work that has not ended: an event not fanned out, a delivery
-- or an e-mail pending (its retries not exhausted). Each is a probe of a partial index;
-- a partition already dropped has none.
create or replace function api.outbox_slot_busy(p_slot text) returns boolean
language plpgsql stable as $$
declare
  v_busy boolean;
  v_check record;
begin
  for v_check in select * from (values ('events', 'fanned_out_at is null'),
                                       ('webhook_deliveries', 'status = ''pending'''),
                                       ('notifications', 'status = ''pending''')) c(tab, pending) loop
    if to_regclass(quote_ident(v_check.tab || '_' || p_slot)) is not null then
      execute format('select exists (select 1 from %I where %s)', v_check.tab || '_' || p_slot, v_check.pending)
         into v_busy;
      if v_busy then
        return true;
      end if;
    end if;
  end loop;
  return false;
end $$;

-- The slots that may be dropped, oldest first: everything in them is older than
-- p_retention and no work in them is pending.
create or replace function api.expired_outbox_partitions(p_retention interval) returns setof text
language sql stable as $$
  select name from outbox_partitions
   where ends_at <= now() - p_retention and not api.outbox_slot_busy(name)
   order by ends_at
$$;

-- Drops the slot's partition of every outbox table and forgets the slot, for the dispatcher
-- (src/dispatch/partitions.cpp), which owns no table (docs/DECISIONS.md "Roles"). Only a
-- slot outbox_partitions lists, so the owner's rights reach nothing else. Dropping a
-- partition takes an ACCESS EXCLUSIVE lock on its parent for a moment (a DETACH
-- CONCURRENTLY cannot run in a function): the lock timeout bounds how long writes queue
-- behind it, and a pass that times out is retried by the next one.
create or replace function api.drop_outbox_slot(p_slot text) returns boolean
language plpgsql volatile security definer set search_path = public, pg_temp set lock_timeout = '200ms' as $$
declare
  v_table text;
begin
  if not exists (select 1 from outbox_partitions where name = p_slot) then
    return false;
  end if;
  foreach v_table in array api.outbox_tables() loop
    execute format('drop table if exists %I', v_table || '_' || p_slot);
  end loop;
  delete from outbox_partitions where name = p_slot;
  return true;
end $$;

revoke execute on function api.extend_outbox_partitions(interval, interval), api.drop_outbox_slot(text) from public;
