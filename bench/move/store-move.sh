#!/usr/bin/env bash
# The phase times and write pause of `storeapi-admin store move` (bench/RESULTS.md, "Store
# move"): two PostgreSQL 15 clusters of its own under a temporary directory (wal_level =
# logical, loopback ports, fsync on, as a pod runs), the directory and pod `main` on the
# first, pod `second` on the second; one store seeded with ORDERS orders moved to `second`
# and back, each move's JSON printed with the store's size (the sum of its rows' sizes).
# Nothing here is part of tools/test.
#   bench/move/store-move.sh [ORDERS]      (default: the seed's default size)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
admin=$root/build/storeapi-admin
source "$root/bench/cluster.sh"
orders=${1:-}
ninja -C "$root/build" -j 2 storeapi-admin >/dev/null

bench_work move-bench
ports=()
cleanup() {
  for n in a b; do cluster_stop "$work/$n"; done
  rm -rf "$work"
}
trap cleanup EXIT
for n in a b; do
  port=$(free_port)
  ports+=("$port")
  cluster_start "$work/$n" "$port" "wal_level = logical" "shared_buffers = 128MB"
done
directory="postgresql://$user@127.0.0.1:${ports[0]}/postgres"
second="postgresql://$user@127.0.0.1:${ports[1]}/postgres"
export STOREAPI_DATABASE_URL=$directory
# The mover (docs/DEPLOY.md "Database roles"): the clusters' superuser, on both.
export STOREAPI_MOVER_USER=$user
"$admin" migrate >/dev/null
STOREAPI_DATABASE_URL=$second "$admin" migrate >/dev/null
psql "$directory" -X -q -c "insert into pods (name, url) values ('second', '$second')"
store=$("$admin" store create --name Bench --slug bench --currency EUR --plan advanced --owner-email owner@bench.example |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
if [[ -n $orders ]]; then
  "$admin" seed --store "$store" --orders "$orders" --products 2000 --customers 20000 --bookings 2000 >/dev/null
else
  "$admin" seed --store "$store" >/dev/null
fi
psql "$directory" -X -q -c "vacuum analyze" >/dev/null

# The store's rows, as stored: every table with a store_id (partitions through their root).
size() {
  psql "$1" -X -At -c "
    select pg_size_pretty(sum(b)::bigint) || ' (' || sum(b)::bigint || ' bytes)' from (
      select (xpath('/row/b/text()', query_to_xml(format(
               'select coalesce(sum(pg_column_size(t.*)), 0) as b from %I t where store_id = %L', c.relname, '$store'),
               false, true, '')))[1]::text::bigint b
        from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'store_id'
       where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition) s"
}
echo "store $store: $(size "$directory") of rows on main; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$admin" store move --store "$store" --to second 2>/dev/null
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$admin" store move --store "$store" --to main 2>/dev/null
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
