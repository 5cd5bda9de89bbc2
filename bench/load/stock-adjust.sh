#!/usr/bin/env bash
# The write path under load: POST /v1/products/{id}/variants/{variant_id}/stock (adjust +1,
# a fresh Idempotency-Key per request) through storeapi with wrk, then pgbench -M prepared
# running the same SQL statement (stock_adjust.pgbench) at the same concurrency, on
# the same cluster, database and targets. Prints both rates, p99 latencies and the ratio.
#   bench/load/stock-adjust.sh [CONNECTIONS=32] [SECONDS=30] [TARGETS=32]
# Env: ROUNDS (default 3: wrk and pgbench alternate, medians reported), STOREAPI_THREADS,
# STOREAPI_DB_CONNS_PER_THREAD (server settings, shown in the output).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/load
conns=${1:-32}
seconds=${2:-30}
targets=${3:-32}
rounds=${ROUNDS:-3}
threads=${STOREAPI_THREADS:-$(nproc)}
db_conns=${STOREAPI_DB_CONNS_PER_THREAD:-2}
build=$root/build
cd "$root"

tools/deps
[[ -f $build/build.ninja ]] || meson setup "$build" --buildtype=release -Dwerror=true >/dev/null
ninja -C "$build" storeapi storeapi-admin >/dev/null

# A cluster of its own (tools/dev-db, .dev/bench), so neither tests nor tools/run data are touched.
export STOREAPI_DEV_DIR=$root/.dev/bench
work=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
  tools/dev-db stop
}
trap cleanup EXIT
tools/dev-db start
cluster=$(tools/dev-db url)
url=${cluster%/*}/storeapi_bench
psql -q "$cluster" -c "drop database if exists storeapi_bench with (force)" -c "create database storeapi_bench"
export STOREAPI_DATABASE_URL=$url

admin() { "$build/storeapi-admin" "$@"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
admin migrate >/dev/null
store=$(admin store create --name Bench --slug bench --currency EUR --plan advanced \
  --owner-email owner@bench.example | field id)
admin store set-rate-limit --store "$store" --rpm 1000000000 >/dev/null
admin seed --store "$store" --orders 200 --products 200 --customers 100 --bookings 50 >/dev/null
key_json=$(admin key create --store "$store" --name bench --access full)
api_key=$(field key <<<"$key_json")
api_key_id=$(field id <<<"$key_json")

# Tracked live variants of live products, with room to grow.
psql -q -At -F ' ' -v store="$store" -v limit="$targets" -f "$here/sql/stock_targets.sql" "$url" | grep -v '^UPDATE' >"$work/targets"
found=$(wc -l <"$work/targets")
[[ $found -eq $targets ]] || { echo "stock-adjust: only $found tracked variants" >&2; exit 1; }
awk '{ print "POST\t/v1/products/" $1 "/variants/" $2 "/stock\t{\"mode\":\"adjust\",\"quantity\":1}" }' \
  "$work/targets" >"$work/requests"
pgbench_scripts=()
while read -r product variant; do
  sed -e "s/PRODUCT_ID/$product/" -e "s/VARIANT_ID/$variant/" "$here/stock_adjust.pgbench" >"$work/$variant.sql"
  pgbench_scripts+=(-f "$work/$variant.sql")
done <"$work/targets"
psql -q "$url" -c "vacuum analyze"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
STOREAPI_LISTEN=127.0.0.1:$port STOREAPI_ACCESS_LOG=off STOREAPI_METRICS_LISTEN=off STOREAPI_THREADS=$threads \
  STOREAPI_DB_CONNS_PER_THREAD=$db_conns "$build/storeapi" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
  sleep 0.1
done

run_wrk() {  # SECONDS
  wrk -t 2 -c "$conns" -d "${1}s" --latency -s "$here/requests.lua" "http://127.0.0.1:$port" \
    -- "$work/requests" "$api_key" random key "$(date +%s%N)" 2
}
fingerprint=$(printf 'bench' | sha256sum | cut -c1-64)
run_pgbench() {  # SECONDS [pgbench options]
  local s=$1
  shift
  pgbench -n -M prepared -c "$conns" -j 2 -T "$s" -D store="$store" -D api_key="$api_key_id" \
    -D fp="$fingerprint" "${pgbench_scripts[@]}" "$@" "$url"
}
# wrk's latencies come as 812.00us, 274.51ms or 1.72s.
to_ms() { awk '{ v = $1 + 0; if ($1 ~ /us$/) v /= 1000; else if ($1 ~ /[0-9]s$/) v *= 1000; printf "%.2f", v }'; }

run_wrk 5 >/dev/null  # warm-up: connections, caches, plans
run_pgbench 5 >/dev/null
# Rounds alternate, so a busy moment of the machine hits both sides alike.
for round in $(seq 1 "$rounds"); do
  run_wrk "$seconds" >"$work/wrk.txt"
  if grep -q "Non-2xx" "$work/wrk.txt"; then
    cat "$work/wrk.txt" >&2
    echo "stock-adjust: some requests failed" >&2
    exit 1
  fi
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$work/wrk.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk.txt" | to_ms)
  echo "storeapi $rps $p99" | tee -a "$work/results"

  rm -f "$work"/pgbench_log.*
  (cd "$work" && run_pgbench "$seconds" -l --log-prefix=pgbench_log) >"$work/pgbench.txt"
  grep -q "number of failed transactions: 0 " "$work/pgbench.txt" || { cat "$work/pgbench.txt" >&2; exit 1; }
  tps=$(awk '/^tps/ { print $3 }' "$work/pgbench.txt")
  p99=$(cat "$work"/pgbench_log.* | awk '{ print $3 }' | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.2f", v[int(NR * 0.99)] / 1000 }')
  echo "pgbench $tps $p99" | tee -a "$work/results"
done

echo
python3 - "$work/results" "$conns" "$threads" "$db_conns" "$seconds" "$rounds" <<'PY'
import statistics, sys
path, conns, threads, db_conns, seconds, rounds = sys.argv[1:]
runs = {"storeapi": [], "pgbench": []}
for line in open(path):
    side, rate, p99 = line.split()
    runs[side].append((float(rate), float(p99)))
median = {side: (statistics.median(r for r, _ in v), statistics.median(p for _, p in v)) for side, v in runs.items()}
print(f"median of {rounds} alternating rounds of {seconds} s")
print("| connections | server threads x db conns | storeapi req/s | storeapi p99 | pgbench tps | pgbench p99 | ratio |")
print("|---|---|---|---|---|---|---|")
s, p = median["storeapi"], median["pgbench"]
print(f"| {conns} | {threads} x {db_conns} | {s[0]:.0f} | {s[1]:.1f} ms | {p[0]:.0f} | {p[1]:.1f} ms | {s[0] / p[0]:.2f} |")
PY
