#!/usr/bin/env bash
# What stage timing costs: two storeapi servers on the bench store, STOREAPI_STAGE_TIMING
# off and on, loaded by turns with wrk (closed loop, GET /v1/store and GET
# /v1/orders/{id}) for ROUNDS rounds; prints every round and the median ratio on/off of
# the req/s (1.00: no cost).
#   bench/profiling/stage-timing-cost.sh    CONNS=64 SECONDS_EACH=5 ROUNDS=3 THREADS=2 DB_CONNS=2
set -euo pipefail
source "$(dirname "$0")/../load/bench_env.sh"
conns=${CONNS:-64}
seconds=${SECONDS_EACH:-5}
rounds=${ROUNDS:-3}
export THREADS=${THREADS:-2} DB_CONNS=${DB_CONNS:-2}
work=$(mktemp -d)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

bench_setup
store=$(ensure_store bench-100k 100000)
key=$(store_key "$store")
order=$(psql_bench -c "select id from orders where store_id = '$store' order by created_at desc offset 5000 limit 1")
declare -A base_of
for timing in off on; do
  STAGE_TIMING=$timing start_server
  servers+=("$server_pid")
  base_of[$timing]=$base
done

declare -A path_of=([/v1/store]=/v1/store ["/v1/orders/{id}"]=/v1/orders/$order)
for label in /v1/store "/v1/orders/{id}"; do
  path=${path_of[$label]}
  for timing in off on; do  # warm-up
    wrk -t2 -c"$conns" -d2s -H "Authorization: Bearer $key" "${base_of[$timing]}$path" >/dev/null
  done
  for round in $(seq "$rounds"); do
    for timing in off on; do
      rps=$(wrk -t2 -c"$conns" -d"${seconds}s" -H "Authorization: Bearer $key" "${base_of[$timing]}$path" |
              awk '/^Requests\/sec/ { print $2 }')
      echo "$label $round $timing $rps" | tee -a "$work/rounds" >&2
    done
  done
done
python3 - "$work/rounds" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    path, round_, timing, rps = line.split()
    runs.setdefault(path, {}).setdefault(round_, {})[timing] = float(rps)
for path, rounds in runs.items():
    ratios = [r["on"] / r["off"] for r in rounds.values()]
    off = statistics.median(r["off"] for r in rounds.values())
    on = statistics.median(r["on"] for r in rounds.values())
    print(f"GET {path}: off {off:.0f} req/s, on {on:.0f} req/s, on/off median {statistics.median(ratios):.3f} "
          f"(rounds: {', '.join(f'{x:.3f}' for x in ratios)})")
PY
