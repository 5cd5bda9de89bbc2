#!/usr/bin/env bash
# GET /v1/store (warm key, keep-alive) on two builds, alternating for ROUNDS rounds in one
# run: a before/after of a change on the request path.
#   bench/load/ab-store.sh OTHER_BINARY   CONNS=32 DURATION=10 ROUNDS=3 URL_PATH=/v1/store WRK_THREADS=1
# Prints req/s, the server's CPU time per request and wrk's socket errors (connect, read,
# write, timeout: a request unanswered for 2 s) for each round (this build's
# build/storeapi, the other, their ratios); the side that runs first alternates. Uses the
# bench cluster of bench_env.sh (.dev/bench, stopped again at the end).
set -euo pipefail
source "$(dirname "$0")/bench_env.sh"
other=$1
conns=${CONNS:-32}
duration=${DURATION:-10}
rounds=${ROUNDS:-3}
url_path=${URL_PATH:-/v1/store}
wrk_threads=${WRK_THREADS:-1}
server_pid=
trap 'stop_server; tools/dev-db stop >/dev/null 2>&1 || true' EXIT

bench_setup
store=$(ensure_store idle-bench 1000)
key=$(store_key "$store")
# "req/s CPU-ns-per-request socket-errors" of one build: the server's CPU time (user +
# system) over the requests wrk counted, which a loaded machine disturbs far less than
# req/s; socket errors as connect/read/write/timeout (0/0/0/0 when wrk reports none).
rps_of() {
  local c0 c1 out n
  STOREAPI_BINARY=$1 start_server
  wrk -t"$wrk_threads" -c"$conns" -d2s -H "Authorization: Bearer $key" "$base$url_path" >/dev/null  # warm-up
  c0=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
  out=$(wrk -t"$wrk_threads" -c"$conns" -d"${duration}s" -H "Authorization: Bearer $key" "$base$url_path")
  c1=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
  stop_server
  n=$(awk '/requests in/ { print $1 }' <<<"$out")
  awk -v out="$(awk '/Requests\/sec/ { print $2 }' <<<"$out")" -v n="$n" -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" \
    -v errors="$(awk -F'[ ,]+' '/Socket errors/ { print $5 "/" $7 "/" $9 "/" $11 }' <<<"$out")" \
    'BEGIN { printf "%.0f %.0f %s", out, c / hz * 1e9 / n, errors == "" ? "0/0/0/0" : errors }'
}
echo "GET $url_path, wrk -t$wrk_threads -c$conns -d${duration}s"
echo "round | req/s this, other, ratio | CPU ns per request this, other, ratio | socket errors c/r/w/timeout this, other"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    this=($(rps_of build/storeapi))
    that=($(rps_of "$other"))
  else  # the other goes first: whichever side runs first sees a different machine
    that=($(rps_of "$other"))
    this=($(rps_of build/storeapi))
  fi
  awk -v r="$r" -v a="${this[0]}" -v b="${that[0]}" -v ca="${this[1]}" -v cb="${that[1]}" \
    -v ea="${this[2]}" -v eb="${that[2]}" \
    'BEGIN { printf "%d | %d %d %.3f | %d %d %.3f | %s %s\n", r, a, b, a / b, ca, cb, ca / cb, ea, eb }'
done
