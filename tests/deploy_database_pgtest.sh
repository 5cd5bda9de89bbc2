#!/usr/bin/env bash
# docs/DEPLOY.md's "The database and its roles" (the block marked `<!-- example:
# database`), run line by line as root against a PostgreSQL cluster of this test's own,
# as Debian's would be reached: the `postgres` user through a socket directory. Stand-ins:
# PGHOST and PGPORT name that cluster (createuser and createdb read them), the URL's
# `host=/run/postgresql` its socket directory and port, `storeapi-admin` the build's.
# Then: both roles exist, the database belongs to storeapi_owner, the migrations are
# applied and every table and function they made is owned by storeapi_owner. Seen
# failing: DEPLOY's "Adding a pod" pointed to this step before it existed.
#   tests/deploy_database_pgtest.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "deploy database test: $*" >&2; [[ -f ${log:-} ]] && tail -5 "$log" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "deploy database test: skipped, needs root (runuser -u postgres)"; exit 77; }
bin=/usr/lib/postgresql/15/bin
work=$(mktemp -d)
chmod 755 "$work"
data=$work/data sock=$work/run log=$work/server.log
cleanup() {
  runuser -u postgres -- "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$sock" && chown postgres: "$work" "$sock"
d=$build; while [[ $d != / ]]; do [[ -x $d ]] || fail "$d is not reachable by postgres"; d=$(dirname "$d"); done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
runuser -u postgres -- "$bin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=reject -E UTF8 \
  --locale=C.UTF-8 >/dev/null
runuser -u postgres -- "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 \
  -o "-p $port -c listen_addresses='' -c unix_socket_directories='$sock'" start >/dev/null || fail "no cluster"

steps=$(awk '/^<!-- example: database/ { on = 1; next } on && /^```sh/ { inside = 1; next }
             inside && /^```/ { exit } inside { print }' "$source_root/docs/DEPLOY.md")
[[ $(grep -c . <<<"$steps") -ge 4 ]] || fail "no database block in docs/DEPLOY.md"
socket="host=$sock&port=$port"  # quoted below: bash 5.2 reads a bare & there as the match
steps=${steps//"host=/run/postgresql"/"$socket"}
steps=${steps//-- storeapi-admin /-- $build/storeapi-admin }
export PGHOST=$sock PGPORT=$port
while IFS= read -r line; do
  eval "$line" >"$work/out" 2>"$work/err" || fail "this DEPLOY line failed: $line: $(cat "$work/err")"
done <<<"$steps"

sql() { runuser -u postgres -- "$bin/psql" -d storeapi -Atqc "$1"; }
[[ $(sql "select string_agg(rolname, ',' order by rolname) from pg_roles where rolname like 'storeapi%'") == \
   storeapi,storeapi_owner ]] || fail "the roles are not there"
[[ $(sql "select pg_get_userbyid(datdba) from pg_database where datname = 'storeapi'") == storeapi_owner ]] ||
  fail "the database is not storeapi_owner's"
[[ $(sql "select count(*) from schema_migrations") -eq $(ls "$source_root"/sql/[0-9]*.sql | wc -l) ]] ||
  fail "the migrations were not all applied"
others=$(sql "select string_agg(c.relname, ' ') from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname in ('public', 'api') and c.relkind in ('r', 'p', 'v', 'S')
                and pg_get_userbyid(c.relowner) <> 'storeapi_owner'")
[[ -z $others ]] || fail "not owned by storeapi_owner: $others"
others=$(sql "select string_agg(p.proname, ' ') from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'api' and pg_get_userbyid(p.proowner) <> 'storeapi_owner'")
[[ -z $others ]] || fail "functions not owned by storeapi_owner: $others"
echo "deploy database test: DEPLOY's lines made both roles and a database whose every object storeapi_owner owns"
