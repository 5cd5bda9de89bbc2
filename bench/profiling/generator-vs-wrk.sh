#!/usr/bin/env bash
# bench/openloop checked against wrk at saturation: both closed loop (openloop --rate 0,
# wrk) with the same connections and threads against the same nginx (answering fixed
# bytes) and storeapi's GET /healthz, alternating for ROUNDS rounds; prints every round
# and the median ratio openloop/wrk per target (1.00: the same req/s).
#   bench/profiling/generator-vs-wrk.sh    CONNS=64 THREADS=2 SECONDS_EACH=5 ROUNDS=3
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/load/nginx.sh
conns=${CONNS:-64}
threads=${THREADS:-2}
seconds=${SECONDS_EACH:-5}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ninja -C build -j 2 storeapi bench/openloop >/dev/null
start_nginx "$work/nginx" '{"status":"ok"}' "$threads"
pids+=("$nginx_pid")
nginx_port=$port
storeapi_port=$(free_port)
STOREAPI_LISTEN=127.0.0.1:$storeapi_port STOREAPI_THREADS=$threads STOREAPI_ACCESS_LOG=off build/storeapi 2>"$work/storeapi.err" &
pids+=($!)
wait_for_port "$storeapi_port"

for target in nginx:$nginx_port/ storeapi:$storeapi_port/healthz; do
  url=http://127.0.0.1:${target#*:}
  for round in $(seq "$rounds"); do
    w=$(wrk -t"$threads" -c"$conns" -d"${seconds}s" "$url" | awk '/^Requests\/sec/ { print $2 }')
    o=$(build/bench/openloop --rate 0 --connections "$conns" --threads "$threads" --duration "$seconds" "$url" |
          awk '$1 == "achieved_rate" { print $2 }')
    echo "${target%%:*} round $round: wrk $w req/s, openloop $o req/s" >&2
    echo "${target%%:*} $w $o" >>"$work/rounds"
  done
done
python3 - "$work/rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    target, wrk, openloop = line.split()
    rows.setdefault(target, []).append((float(wrk), float(openloop)))
for target, runs in rows.items():
    print(f"{target}: wrk {statistics.median(w for w, _ in runs):.0f} req/s, openloop "
          f"{statistics.median(o for _, o in runs):.0f} req/s, openloop/wrk median "
          f"{statistics.median(o / w for w, o in runs):.2f} (rounds: {', '.join(f'{o / w:.2f}' for w, o in runs)})")
PY
