#!/usr/bin/env bash
# tools/dev-db's database as docs/DEPLOY.md's "The database and its roles" makes one, so
# that tools/run migrates as the owner and serves as the runtime role:
# - a fresh one is storeapi_owner's, and `migrate` as storeapi_owner leaves it owning
#   every object of the schema;
# - one an earlier dev-db made (the superuser's database, and every object in it, as the
#   superuser's `migrate` left it) is handed to storeapi_owner at the next start, so that
#   `migrate` as the owner applies the function files again over it.
# Seen failing without the hand-over: that migrate, "permission denied for table
# schema_migrations".
#   tests/dev_db_pgtest.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
chmod 755 "$work"  # tools/dev-db runs PostgreSQL as the postgres user when root
export STOREAPI_DEV_DIR=$work/dev
dev_db() { "$source_root/tools/dev-db" "$@"; }
cleanup() {
  dev_db stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "dev-db test: $*" >&2; exit 1; }
sql() { dev_db psql -X -Atqc "$1"; }
migrate_as_owner() {
  STOREAPI_DATABASE_URL=$(dev_db url storeapi_owner) "$build/storeapi-admin" migrate >"$work/migrate.out" 2>"$work/migrate.err" ||
    fail "migrate as storeapi_owner ($1): $(cat "$work/migrate.err")"
}
# What of the schema storeapi_owner does not own: relations, routines, types, schema api.
not_the_owners() {
  sql "select coalesce(string_agg(name, ' '), '') from (
         select c.oid::regclass::text as name from pg_class c
          where c.relnamespace in ('public'::regnamespace, to_regnamespace('api'))
            and c.relowner <> 'storeapi_owner'::regrole
         union all select p.oid::regprocedure::text from pg_proc p
          where p.pronamespace in ('public'::regnamespace, to_regnamespace('api'))
            and p.proowner <> 'storeapi_owner'::regrole
         union all select t.oid::regtype::text from pg_type t
          where t.typnamespace in ('public'::regnamespace, to_regnamespace('api'))
            and t.typowner <> 'storeapi_owner'::regrole
         union all select n.nspname::text from pg_namespace n
          where n.nspname = 'api' and n.nspowner <> 'storeapi_owner'::regrole) objects"
}
database_owner() { sql "select pg_get_userbyid(datdba) from pg_database where datname = current_database()"; }

dev_db start
[[ $(database_owner) == storeapi_owner ]] || fail "a fresh dev database is $(database_owner)'s"
migrate_as_owner "a fresh dev database"
[[ -z $(not_the_owners) ]] || fail "not storeapi_owner's after its migrate: $(not_the_owners)"

# As an earlier dev-db and its migrate left it: the database and everything in it the superuser's.
superuser=$(sql "select current_user")
sql "reassign owned by storeapi_owner to \"$superuser\""
[[ $(database_owner) == "$superuser" && -n $(not_the_owners) ]] || fail "the earlier layout was not made"
dev_db start 2>"$work/start.err"
grep -q "storeapi_owner's now" "$work/start.err" || fail "dev-db start did not say it handed the database over"
[[ $(database_owner) == storeapi_owner ]] || fail "the handed-over database is $(database_owner)'s"
[[ -z $(not_the_owners) ]] || fail "not handed over: $(not_the_owners)"
sql "update schema_functions set checksum = 'an earlier text'"
migrate_as_owner "a handed-over dev database"
files=$(ls "$source_root"/sql/functions/*.sql | wc -l)
[[ $(grep -o '"functions/' "$work/migrate.out" | wc -l) -eq $files ]] ||
  fail "migrate did not apply the $files function files again: $(cat "$work/migrate.out")"
echo "dev-db test: a fresh dev database is storeapi_owner's; an earlier one is handed over, and migrate runs as the owner on both"
