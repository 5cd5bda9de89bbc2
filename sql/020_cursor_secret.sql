-- One cursor-signing secret for every server on this database, so a next_cursor issued by
-- one node of a fleet pages on every other (docs/DECISIONS.md "Fleet"). Made once, here,
-- from the database's strong random source (gen_random_uuid: 122 random bits each, 244
-- together); STOREAPI_SECRET still overrides it. Global, like schema_migrations: it
-- belongs to no store, so it carries no store_id.
create table cursor_secret (
  only_row boolean primary key default true check (only_row),
  secret text not null check (length(secret) >= 32)
);
insert into cursor_secret (secret)
select replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
-- Only the owner (the role that migrates and serves) may read it.
revoke all on cursor_secret from public;
