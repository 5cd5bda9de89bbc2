#!/usr/bin/env bash
# GET /v1/store (warm key, keep-alive) on two builds, alternating for ROUNDS rounds in one
# run: a before/after of a change on the request path.
#   bench/load/ab-store.sh OTHER_BINARY   CONNS=32 DURATION=10 ROUNDS=3
# Prints req/s and the server's CPU time per request for each round (this build's
# build/storeapi, the other, their ratios); the side that runs first alternates. Uses the bench cluster of
# bench_env.sh (.dev/bench, stopped again at the end).
set -euo pipefail
source "$(dirname "$0")/bench_env.sh"
other=$1
conns=${CONNS:-32}
duration=${DURATION:-10}
rounds=${ROUNDS:-3}
server_pid=
trap 'stop_server; tools/dev-db stop >/dev/null 2>&1 || true' EXIT

bench_setup
store=$(ensure_store idle-bench 1000)
key=$(store_key "$store")
# "req/s CPU-ns-per-request" of one build: the server's CPU time (user + system) over the
# requests wrk counted, which a loaded machine disturbs far less than req/s.
rps_of() {
  local c0 c1 out n secs
  STOREAPI_BINARY=$1 start_server
  wrk -t1 -c"$conns" -d2s -H "Authorization: Bearer $key" "$base/v1/store" >/dev/null  # warm-up
  c0=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
  out=$(wrk -t1 -c"$conns" -d"${duration}s" -H "Authorization: Bearer $key" "$base/v1/store")
  c1=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
  stop_server
  n=$(awk '/requests in/ { print $1 }' <<<"$out")
  awk -v out="$(awk '/Requests\/sec/ { print $2 }' <<<"$out")" -v n="$n" -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.0f %.0f", out, c / hz * 1e9 / n }'
}
echo "round | req/s this, other, ratio | CPU ns per request this, other, ratio"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    this=($(rps_of build/storeapi))
    that=($(rps_of "$other"))
  else  # the other goes first: whichever side runs first sees a different machine
    that=($(rps_of "$other"))
    this=($(rps_of build/storeapi))
  fi
  awk -v r="$r" -v a="${this[0]}" -v b="${that[0]}" -v ca="${this[1]}" -v cb="${that[1]}" \
    'BEGIN { printf "%d | %d %d %.3f | %d %d %.3f\n", r, a, b, a / b, ca, cb, ca / cb }'
done
