#!/usr/bin/env bash
# Load benchmarks of authentication, rate limit and key lookup, by hand, not part
# of tools/test. Builds release binaries, starts a PostgreSQL cluster of its own
# (.dev/bench), creates a store whose rate limit never refuses and a key, then measures
# with wrk and pgbench, all on this machine. Prints markdown rows for bench/RESULTS.md.
#
#   bench/load/auth.sh                      (a) and (b)
#   bench/load/auth.sh --sweep              also STOREAPI_DB_CONNS_PER_THREAD 1..4
#   bench/load/auth.sh --endpoint PATH --sql FILE [-D name=value ...]
#                                           (b) for a single-row endpoint: wrk on PATH
#                                           (with the key) against pgbench running FILE
#
# (a) GET /v1/store with a warm key cache vs GET /healthz: the cost of authentication,
#     rate limit and the JSON answer.
# (b) one prepared single-row SELECT per request through the server vs pgbench -M prepared
#     running the same SELECT at the same concurrency. Until a read endpoint exists, the
#     server side is the key lookup itself: every request carries a new unknown key
#     (random_key.lua), so each cost one SELECT by hash (finding no row) and a 401 —
#     until the node's set of key hashes refused unknown keys without a query
#     (bench/load/key-flood): the server row now measures no database work.
#
# Settings (environment): BENCH_DURATION (10), BENCH_CONNECTIONS (64), BENCH_THREADS
# (wrk and pgbench threads, 2), STOREAPI_THREADS (server, default: cores),
# STOREAPI_BENCH_BUILD_DIR (build-bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-10}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
sweep=0
endpoint=""
endpoint_sql=""
pgbench_defs=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --sweep) sweep=1 ;;
    --endpoint) endpoint=$2; shift ;;
    --sql) endpoint_sql=$2; shift ;;
    -D) pgbench_defs+=(-D "$2"); shift ;;
    *) echo "usage: bench/load/auth.sh [--sweep] [--endpoint PATH --sql FILE [-D name=value ...]]" >&2; exit 2 ;;
  esac
  shift
done

build=${STOREAPI_BENCH_BUILD_DIR:-build-bench}
[[ -f $build/build.ninja ]] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" storeapi storeapi-admin >/dev/null

export STOREAPI_DEV_DIR=$root/.dev/bench
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  tools/dev-db stop
}
trap cleanup EXIT
tools/dev-db start
cluster=$(tools/dev-db url)
database=${cluster%/*}/storeapi_bench
psql=/usr/lib/postgresql/15/bin/psql
"$psql" -qX "$cluster" -c "drop database if exists storeapi_bench" -c "create database storeapi_bench" 2>/dev/null

admin() { STOREAPI_DATABASE_URL=$database "$build/storeapi-admin" "$@"; }
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
admin migrate >/dev/null
store=$(admin store create --name Bench --slug bench --currency EUR --plan advanced --owner-email owner@bench.example | field id)
admin store set-rate-limit --store "$store" --rpm 100000000 >/dev/null  # never refuses
key=$(admin key create --store "$store" --name bench --access full | field key)
key_hash=$(printf %s "$key" | sha256sum | cut -d' ' -f1)
unknown_hash=$(printf %s "sk_live_$(head -c 64 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 32)x" | sha256sum | cut -d' ' -f1)

# Starts the server with STOREAPI_DB_CONNS_PER_THREAD=$1; sets port.
start_server() {
  local log
  log=$(mktemp)
  STOREAPI_DATABASE_URL=$database STOREAPI_LISTEN=127.0.0.1:0 STOREAPI_ACCESS_LOG=off STOREAPI_METRICS_LISTEN=off \
    STOREAPI_DB_CONNS_PER_THREAD=$1 "$build/storeapi" 2>"$log" &
  server_pid=$!
  for _ in $(seq 1 300); do
    port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$log")
    [[ -n $port ]] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
  done
  [[ -n $port ]] || { cat "$log" >&2; exit 1; }
}

stop_server() {
  kill "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}

# wrk's figures as "req/s | p50 ms | p99 ms | avg ms".
to_ms() {
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
run_wrk() {
  local out
  out=$(wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$@")
  local rps p50 p99 avg
  rps=$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' <<<"$out")
  p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
  p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
  avg=$(to_ms "$(awk '$1 == "Latency" { print $2; exit }' <<<"$out")")
  local errors
  errors=$(awk '/Non-2xx or 3xx responses|Socket errors/ { print }' <<<"$out" | tr '\n' ' ')
  echo "$rps | $p50 | $p99 | $avg${errors:+ | $errors}"
}

# pgbench's figures as "tps | avg ms".
run_pgbench() {
  local out
  out=$(/usr/lib/postgresql/15/bin/pgbench -n -M prepared -c "$connections" -j "$threads" -T "$duration" \
    "$@" "$database" 2>&1)
  local tps avg
  tps=$(awk '/^tps = / { printf "%.0f", $3 }' <<<"$out")
  avg=$(awk '/^latency average/ { print $4 }' <<<"$out")
  echo "$tps | $avg"
}

url() { echo "http://127.0.0.1:$port$1"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%FT%TZ)"
echo "wrk -t$threads -c$connections -d${duration}s --latency; pgbench -M prepared -c $connections -j $threads -T $duration"

start_server 2
curl -sf -H "Authorization: Bearer $key" "$(url /v1/store)" >/dev/null  # warm the key cache
echo
echo "(a) | req/s | p50 ms | p99 ms | avg ms"
echo "GET /healthz | $(run_wrk "$(url /healthz)")"
echo "GET /v1/store (warm key) | $(run_wrk -H "Authorization: Bearer $key" "$(url /v1/store)")"

echo
echo "(b) | req/s or tps | p50 ms | p99 ms | avg ms"
echo "server: GET /v1/store, new unknown key each (key lookup, 401) | $(run_wrk -s bench/load/random_key.lua "$(url /v1/store)")"
echo "pgbench: key lookup, unknown hash (0 rows) | $(run_pgbench -f bench/load/sql/auth_key_by_hash.sql -D hash="$unknown_hash" | sed 's/ | / | - | - | /')"
echo "pgbench: key lookup, the bench key (1 row) | $(run_pgbench -f bench/load/sql/auth_key_by_hash.sql -D hash="$key_hash" | sed 's/ | / | - | - | /')"
if [[ -n $endpoint ]]; then
  echo "server: GET $endpoint | $(run_wrk -H "Authorization: Bearer $key" "$(url "$endpoint")")"
  echo "pgbench: $(basename "$endpoint_sql") | $(run_pgbench -f "$endpoint_sql" "${pgbench_defs[@]}" | sed 's/ | / | - | - | /')"
fi
stop_server

if [[ $sweep -eq 1 ]]; then
  echo
  echo "STOREAPI_DB_CONNS_PER_THREAD | req/s | p50 ms | p99 ms | avg ms  (new unknown key each)"
  for n in 1 2 3 4; do
    start_server "$n"
    echo "$n | $(run_wrk -s bench/load/random_key.lua "$(url /v1/store)")"
    stop_server
  done
fi
