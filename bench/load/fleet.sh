#!/usr/bin/env bash
# The cost of fleet mode (STOREAPI_REDIS_URL: one rate-limit script call in Redis per
# request) against single-node mode (the in-process limiter), for bench/RESULTS.md: wrk
# on GET /v1/store and GET /v1/orders/{id}, the two modes alternating for ROUNDS rounds
# in the same run (medians reported), Redis on loopback beside the server.
#   bench/load/fleet.sh   CONNS=32 DURATION=5 ROUNDS=3 THREADS=2 DB_CONNS=1 by default
set -euo pipefail
source "$(dirname "$0")/bench_env.sh"
conns=${CONNS:-32}
duration=${DURATION:-5}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
redis_pid=
trap 'stop_server; [[ -n $redis_pid ]] && kill "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT

bench_setup
store=$(ensure_store fleet-bench 10000)
key=$(store_key "$store")
order=$(psql_bench -c "select id from orders where store_id = '$store' order by created_at desc limit 1")

redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do [[ $(redis-cli -p "$redis_port" ping 2>/dev/null) == PONG ]] && break; sleep 0.1; done

# req/s of wrk on PATH.
rps() {
  wrk -t 2 -c "$conns" -d 1s -H "Authorization: Bearer $key" "$base$1" >/dev/null  # warm-up
  local out
  out=$(wrk -t 2 -c "$conns" -d "${duration}s" -H "Authorization: Bearer $key" "$base$1")
  if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers for $1:" >&2; echo "$out" >&2; exit 1; fi
  awk '/Requests\/sec/ { printf "%.0f", $2 }' <<<"$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for round in $(seq 1 "$rounds"); do
  for mode in single fleet; do
    if [[ $mode == fleet ]]; then STOREAPI_REDIS_URL=redis://127.0.0.1:$redis_port start_server; else start_server; fi
    echo "$(rps /v1/store)" >>"$work/$mode.store"
    echo "$(rps "/v1/orders/$order")" >>"$work/$mode.order"
    stop_server
  done
  echo "round $round done" >&2
done

printf '%-22s %10s %10s %8s\n' endpoint single fleet ratio
for endpoint in store order; do
  s=$(median <"$work/single.$endpoint")
  f=$(median <"$work/fleet.$endpoint")
  name=$([[ $endpoint == store ]] && echo "GET /v1/store" || echo "GET /v1/orders/{id}")
  printf '%-22s %10.0f %10.0f %8.2f\n' "$name" "$s" "$f" "$(awk -v f="$f" -v s="$s" 'BEGIN { print f / s }')"
done
