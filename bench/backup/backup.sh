#!/usr/bin/env bash
# Backups and restores measured (bench/RESULTS.md, "Backups"; docs/SCALING.md "Backups and
# recovery"): a PostgreSQL 15 cluster of its own under a temporary directory (fsync on, as
# a pod runs) archiving to a pgBackRest repository there (dist/pgbackrest/pgbackrest.conf's
# choices: zstd level 3, two processes, asynchronous archive-push); one store seeded with
# ORDERS orders. Prints, one line each:
#   full      seconds, database bytes, repository bytes of a full backup
#   incr      the same for an incremental backup after a second store of ORDERS/4 orders
#   restore   seconds of storeapi-recover --to-end (the restore and the replay of the WAL
#             since the incremental) into a fresh directory, and the bytes restored
#   load      req/s and p99 of a read (GET /v1/orders?limit=20) and a write (stock
#             adjust, a fresh Idempotency-Key each) scenario with wrk for SECONDS, without
#             and with a full backup running, same run, alternating
# with the load average beside. Nothing here is part of tools/test.
#   bench/backup/backup.sh [ORDERS=20000] [SECONDS=8]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
admin=$root/build/storeapi-admin
source "$root/bench/cluster.sh"
orders=${1:-20000}
seconds=${2:-8}
ninja -C "$root/build" -j 2 storeapi storeapi-admin >/dev/null

bench_work backup-bench
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  for d in data restored; do cluster_stop "$work/$d"; done
  rm -rf "$work"
}
trap cleanup EXIT
port=$(free_port)
config=$work/pgbackrest.conf
cat >"$config" <<CONF
[global]
repo1-path=$work/repo
log-path=$work/log
lock-path=$work/lock
spool-path=$work/spool
archive-async=y
start-fast=y
compress-type=zst
compress-level=3
process-max=2
log-level-console=error
log-level-file=off
repo1-retention-full=2
[bench]
pg1-path=$work/data
pg1-port=$port
pg1-socket-path=$work
CONF
chmod 644 "$config"
cluster_start "$work/data" "$port" "shared_buffers = 128MB" "archive_mode = on" \
  "archive_command = 'pgbackrest --config=$config --stanza=bench archive-push %p'"
pgbr() { "${runas[@]}" pgbackrest --config="$config" --stanza=bench "$@"; }
pgbr stanza-create
url="postgresql://$user@127.0.0.1:$port/postgres"
export STOREAPI_DATABASE_URL=$url
"$admin" migrate >/dev/null
new_store() {
  "$admin" store create --name "$1" --slug "$1" --currency EUR --plan advanced --owner-email "owner@$1.example" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
store=$(new_store bench)
"$admin" seed --store "$store" --orders "$orders" --products 2000 --customers 20000 --bookings 2000 >/dev/null
"$admin" store set-rate-limit --store "$store" --rpm 1000000000 >/dev/null
psql "$url" -X -q -c "vacuum analyze"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# backup TYPE: "seconds database-bytes repository-bytes" of a backup of that type.
backup() {
  local start end
  start=$(date +%s.%N)
  pgbr --type="$1" backup
  end=$(date +%s.%N)
  pgbr --output=json info | python3 -c "
import json, sys
b = json.load(sys.stdin)[0]['backup'][-1]
print('%.1f %d %d' % ($end - $start, b['info']['size'], b['info']['repository']['delta']))"
}
read -r s db repo <<<"$(backup full)"
echo "full: ${s} s, database $((db / 1048576)) MiB, repository $((repo / 1048576)) MiB (load $(cut -d' ' -f1 /proc/loadavg))"
second=$(new_store bench-incr)
"$admin" seed --store "$second" --orders $((orders / 4)) --products 500 --customers 5000 --bookings 500 >/dev/null
read -r s db repo <<<"$(backup incr)"
echo "incr: ${s} s after $((orders / 4)) more orders, database $((db / 1048576)) MiB, repository $((repo / 1048576)) MiB (load $(cut -d' ' -f1 /proc/loadavg))"

psql "$url" -X -q -At -c "select pg_switch_wal()" >/dev/null
restore_port=$(free_port)
start=$(date +%s.%N)
"${runas[@]}" "$root/dist/pgbackrest/storeapi-recover" --config "$config" --stanza bench --to-end --scratch \
  --pg-path "$work/restored" --port "$restore_port" --socket-dir "$work" --database postgres >/dev/null 2>"$work/recover.err" ||
  { cat "$work/recover.err"; exit 1; }
end=$(date +%s.%N)
restored=$(du -sb "$work/restored" | cut -f1)
echo "restore: $(python3 -c "print('%.1f' % ($end - $start))") s for $((restored / 1048576)) MiB restored and started (load $(cut -d' ' -f1 /proc/loadavg))"
"${runas[@]}" "$bin/pg_ctl" -D "$work/restored" -m fast stop >/dev/null

# The cost of a backup under load.
key=$("$admin" key create --store "$store" --name bench --access full | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
api_port=$(free_port)
STOREAPI_LISTEN=127.0.0.1:$api_port STOREAPI_THREADS=2 STOREAPI_ACCESS_LOG=off STOREAPI_METRICS_LISTEN=off \
  STOREAPI_SECRET=bench-secret-at-least-32-bytes-long "$root/build/storeapi" 2>"$work/storeapi.log" &
server_pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$api_port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
variant=$(psql "$url" -X -At -c "select product_id || '/variants/' || id from variants where store_id = '$store' and deleted_at is null and stock is not null limit 1")
psql "$url" -X -q -c "update variants set stock = 100000000 where store_id = '$store'"
printf 'GET\t/v1/orders?limit=20\n' >"$work/reads"
printf 'POST\t/v1/products/%s/stock\t{"mode":"adjust","quantity":1}\n' "$variant" >"$work/writes"
to_ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.1f", n }'; }
# run FILE KEYS: "req/s p99-ms" of wrk on the scenario.
run() {
  local out
  out=$(wrk -t 2 -c 16 -d "${seconds}s" --latency -s "$root/bench/load/requests.lua" "http://127.0.0.1:$api_port" \
          -- "$1" "$key" random "$2" "$RANDOM$RANDOM" 2)
  echo "$(awk '/Requests\/sec/ { printf "%.0f", $2 }' <<<"$out") $(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")"
}
for scenario in reads writes; do
  keys=$([[ $scenario == writes ]] && echo key || echo none)
  read -r quiet_rps quiet_p99 <<<"$(run "$work/$scenario" "$keys")"
  pgbr --type=full backup >/dev/null 2>&1 &
  backup_pid=$!
  read -r busy_rps busy_p99 <<<"$(run "$work/$scenario" "$keys")"
  wait "$backup_pid"
  echo "load $scenario: without a backup ${quiet_rps} req/s p99 ${quiet_p99} ms; during a full backup ${busy_rps} req/s p99 ${busy_p99} ms (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
