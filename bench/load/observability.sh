#!/usr/bin/env bash
# The cost of observability: GET /v1/store req/s with /metrics and the JSON
# access log on (logging to a file) against both off, the two servers taking turns in the
# same run. By hand, not part of tools/test. Prints one markdown row per round and the
# median ratio for bench/RESULTS.md.
#   bench/load/observability.sh
# Settings (environment): DURATION (10s), CONNECTIONS (64), WRK_THREADS (2), ROUNDS (3),
# THREADS (server threads, 2).
source "$(dirname "$0")/bench_env.sh"

duration=${DURATION:-10s}
connections=${CONNECTIONS:-64}
wrk_threads=${WRK_THREADS:-2}
rounds=${ROUNDS:-3}

bench_setup
store=$(ensure_store bench-observability 100)
key=$(store_key "$store")

# START_FIRST=off starts the baseline first (the start order showed an effect of its own).
start_on() { ACCESS_LOG=json METRICS_LISTEN=127.0.0.1:0 start_server; on_base=$base on_pid=$server_pid; }
start_off() { ACCESS_LOG=off METRICS_LISTEN=off start_server; off_base=$base off_pid=$server_pid; }
if [[ ${START_FIRST:-on} == off ]]; then start_off; start_on; else start_on; start_off; fi
trap 'kill $on_pid $off_pid 2>/dev/null; wait 2>/dev/null; tools/dev-db stop' EXIT

rps() {  # base: requests/s of GET /v1/store
  wrk -t "$wrk_threads" -c "$connections" -d "$duration" -H "Authorization: Bearer $key" "$1/v1/store" |
    awk '/Requests\/sec/ {print $2}'
}

rps "$on_base" >/dev/null  # warm both key caches and connections
rps "$off_base" >/dev/null
ratios=()
echo "| round | on (req/s) | off (req/s) | on/off |"
echo "|---|---|---|---|"
for round in $(seq "$rounds"); do
  # Alternate which side goes first, so drift on the shared machine hits both alike.
  if (( round % 2 )); then on=$(rps "$on_base"); off=$(rps "$off_base")
  else off=$(rps "$off_base"); on=$(rps "$on_base"); fi
  ratio=$(python3 -c "print(f'{$on/$off:.3f}')")
  ratios+=("$ratio")
  echo "| $round | $on | $off | $ratio |"
done
echo "median on/off: $(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")"
