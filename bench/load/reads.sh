#!/usr/bin/env bash
# Read-endpoint benchmarks for bench/RESULTS.md. Each HTTP figure (wrk, keep-alive) sits
# beside pgbench -M prepared running the server's own statement (from
# build/bench/print-statements) with the same parameters at the same concurrency, in the
# same run. Stores of 10,000, 100,000 and 1,000,000 orders are seeded on first use
# (about 4 minutes) and kept in .dev/bench. Each comparison alternates its two sides for
# ROUNDS rounds and reports the medians, so load from elsewhere on the machine drifting
# during the run hits both sides alike.
#   bench/load/reads.sh   CONNS=32 DURATION=5 ROUNDS=5 THREADS=2 DB_CONNS=1 by default
set -euo pipefail
source "$(dirname "$0")/bench_env.sh"
conns=${CONNS:-32}
duration=${DURATION:-5}
rounds=${ROUNDS:-5}
work=$(mktemp -d)
trap 'stop_server; rm -rf "$work"' EXIT

# Milliseconds from a wrk latency such as 850.00us, 1.23ms or 1.01s.
to_ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'; }

# wrk_run CONNS PATH KEY: "req/s p50 p99" (ms).
wrk_run() {
  local out threads=$(( $1 < 2 ? $1 : 2 ))
  wrk -t "$threads" -c "$1" -d 2s -H "Authorization: Bearer $3" "$base$2" >/dev/null  # warm-up
  out=$(wrk -t "$threads" -c "$1" -d "${duration}s" --latency -H "Authorization: Bearer $3" "$base$2")
  if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers for $2:" >&2; echo "$out" >&2; exit 1; fi
  echo "$(awk '/Requests\/sec/ { printf "%.0f", $2 }' <<<"$out") $(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")") $(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")"
}

# pgbench_run CONNS STATEMENT VALUE...: the statement with $1.. bound to the values (NULL
# for SQL null, written into the text), run by pgbench -M prepared; "tx/s p50 p99" (ms).
pgbench_run() {
  local conns=$1 name=$2
  shift 2
  local defines
  pgbench_script "$name" "$work/$name.sql" "$@"
  defines=("${pgbench_defines[@]}")
  pgbench -n -M prepared -c "$conns" -j 2 -T 2 -f "$work/$name.sql" "${defines[@]}" "$STOREAPI_DATABASE_URL" >/dev/null 2>&1
  local out tps
  # Under heavy outside load 32 fresh backends can take the whole run to connect (0
  # transactions): such a round is run again, up to three times.
  for _ in 1 2 3; do
    rm -f "$work"/pgb.*
    out=$(cd "$work" && pgbench -n -M prepared -c "$conns" -j 2 -T "$duration" -l --log-prefix=pgb \
            -f "$work/$name.sql" "${defines[@]}" "$STOREAPI_DATABASE_URL" 2>&1)
    tps=$(awk '/^tps/ { printf "%.0f", $3 }' <<<"$out")
    [[ -n $tps && $tps != 0 ]] && break
  done
  [[ -n $tps && $tps != 0 ]] || { echo "$out" >&2; exit 1; }
  cat "$work"/pgb.* | awk '{ print $3 }' | sort -n >"$work/latencies"
  local n p50 p99
  n=$(wc -l <"$work/latencies")
  p50=$(awk -v n="$n" 'NR == int(n * 0.50) + 1 { printf "%.2f", $1 / 1000 }' "$work/latencies")
  p99=$(awk -v n="$n" 'NR == int(n * 0.99) + 1 { printf "%.2f", $1 / 1000 }' "$work/latencies")
  echo "$tps $p50 $p99"
}

# Column-wise medians of lines of numbers on stdin.
medians() {
  python3 -c 'import statistics, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(" ".join("%g" % statistics.median(c) for c in zip(*rows)))'
}

# compare LABEL "HTTP COMMAND" "PGBENCH COMMAND": a table row of the medians over
# alternating rounds, with the ratio of the throughputs.
compare() {
  local http=() pg=()
  for _ in $(seq 1 "$rounds"); do
    http+=("$(eval "$2")")
    pg+=("$(eval "$3")")
  done
  row "$1" "$(printf '%s\n' "${http[@]}" | medians)" "$(printf '%s\n' "${pg[@]}" | medians)"
}

# row LABEL "HTTP" "PGBENCH": one table row with the ratio of the req/s.
row() {
  read -r hr hp50 hp99 <<<"$2"
  read -r pr pp50 pp99 <<<"$3"
  printf "| %s | %s | %s / %s | %s | %s / %s | %.2f× |\n" "$1" "$hr" "$hp50" "$hp99" "$pr" "$pp50" "$pp99" \
    "$(awk -v a="$hr" -v b="$pr" 'BEGIN { print a / b }')"
}

bench_setup
s10k=$(ensure_store bench-10k 10000)
s100k=$(ensure_store bench-100k 100000)
s1m=$(ensure_store bench-1m 1000000)
k10k=$(store_key "$s10k")
k100k=$(store_key "$s100k")
k1m=$(store_key "$s1m")
start_server

order=$(psql_bench -c "select id from orders where store_id = '$s100k' order by created_at desc offset 5000 limit 1")
customer=$(psql_bench -c "select id from customers where store_id = '$s100k' order by created_at desc offset 500 limit 1")
page=("$s100k" -infinity ffffffff-ffff-ffff-ffff-ffffffffffff infinity 00000000-0000-0000-0000-000000000000 26 NULL NULL NULL)

echo "## Reads: HTTP vs pgbench -M prepared ($conns connections, medians of $rounds alternating rounds of ${duration} s, $(nproc) cores, THREADS=${THREADS:-2}, DB_CONNS=${DB_CONNS:-1})"
echo
echo "| request | HTTP req/s | p50 / p99 ms | pgbench tx/s | p50 / p99 ms | ratio |"
echo "|---|---|---|---|---|---|"
compare "GET /v1/orders/{id} (100k orders)" 'wrk_run "$conns" "/v1/orders/$order" "$k100k"' \
  'pgbench_run "$conns" orders_get "$s100k" "$order"'
compare "GET /v1/orders?limit=25 (100k orders)" 'wrk_run "$conns" "/v1/orders?limit=25" "$k100k"' \
  'pgbench_run "$conns" orders_walk_desc "${page[@]}"'
compare "GET /v1/customers/{id} (100k orders)" 'wrk_run "$conns" "/v1/customers/$customer" "$k100k"' \
  'pgbench_run "$conns" customers_get "$s100k" "$customer"'


# Latency of one page by depth and store size, one connection at a time: the first page,
# and a page starting in the middle of the store (created_before = the median created_at,
# the same index start as a cursor there).
middle() {
  psql_bench -c "select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') from orders
                 where store_id = '$1' order by created_at offset (select count(*) / 2 from orders where store_id = '$1') limit 1"
}
echo
echo "## Reads: p50 of one page (GET /v1/orders?limit=25, 1 connection, medians of $rounds alternating rounds of ${duration} s)"
echo
echo "| page | 10,000 orders p50 / p99 ms | 1,000,000 orders p50 / p99 ms | p50 ratio |"
echo "|---|---|---|---|"
for which in first middle; do
  q10k="/v1/orders?limit=25"
  q1m="/v1/orders?limit=25"
  if [[ $which == middle ]]; then
    q10k+="&created_before=$(middle "$s10k")"
    q1m+="&created_before=$(middle "$s1m")"
  fi
  small=() large=()
  for _ in $(seq 1 "$rounds"); do
    small+=("$(wrk_run 1 "$q10k" "$k10k")")
    large+=("$(wrk_run 1 "$q1m" "$k1m")")
  done
  read -r _ a50 a99 <<<"$(printf '%s\n' "${small[@]}" | medians)"
  read -r _ b50 b99 <<<"$(printf '%s\n' "${large[@]}" | medians)"
  printf "| %s | %s / %s | %s / %s | %.2f |\n" "$which" "$a50" "$a99" "$b50" "$b99" \
    "$(awk -v a="$a50" -v b="$b50" 'BEGIN { print b / a }')"
done
