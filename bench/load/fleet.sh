#!/usr/bin/env bash
# The cost of fleet mode (STOREAPI_REDIS_URL: one script call in Redis per core and loop
# iteration, carrying that iteration's requests; auth/fleet_batch.hpp) against single-node
# mode (the in-process limiter), for bench/RESULTS.md: wrk on GET /v1/store and GET /v1/orders/{id}, the two modes alternating for ROUNDS rounds
# in the same run (medians reported), Redis on loopback beside the server. Also the CPU
# time per request of the server and of Redis (/proc/PID/stat over the measured run), so
# that the server's own overhead can be told from Redis competing for the same cores, and
# how many requests each script call carried; and, for the whole machine, wrk's CPU time
# and the idle time per request, which with the two make up all of its CPU time: where
# fleet mode's req/s go.
#   bench/load/fleet.sh   CONNS=32 DURATION=5 ROUNDS=3 THREADS=2 DB_CONNS=1 by default
#   REDIS_SOCKET=1 bench/load/fleet.sh   the server reaches Redis through its socket file
#     (STOREAPI_REDIS_URL=unix://...) instead of loopback TCP
#   REDIS_CPUS=1 bench/load/fleet.sh   Redis pinned (taskset -c) to those CPUs
#   SERVER_CPUS=0 THREADS=1 OTHERS_CPUS=1 bench/load/fleet.sh   the server alone on CPU 0,
#     and wrk, Redis and PostgreSQL (its running processes and the backends they fork)
#     on CPU 1: Redis takes none of the server's CPU, but its answers wait behind wrk.
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

others=()
if [[ -n ${OTHERS_CPUS:-} ]]; then
  others=(taskset -c "$OTHERS_CPUS")
  REDIS_CPUS=$OTHERS_CPUS
  postmaster=$(head -1 "$STOREAPI_DEV_DIR/pg/data/postmaster.pid")
  for pid in "$postmaster" $(pgrep -P "$postmaster"); do
    taskset -a -c -p "$OTHERS_CPUS" "$pid" >/dev/null
  done
fi

redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pin=()
[[ -n ${REDIS_CPUS:-} ]] && pin=(taskset -c "$REDIS_CPUS")
"${pin[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --unixsocket "$work/redis.sock" \
  --save '' --appendonly no --loglevel warning >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do [[ $(redis-cli -p "$redis_port" ping 2>/dev/null) == PONG ]] && break; sleep 0.1; done
redis_url=redis://127.0.0.1:$redis_port
[[ -n ${REDIS_SOCKET:-} ]] && redis_url=unix://$work/redis.sock

# CPU time of a process so far, in clock ticks (utime + stime).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# Script calls Redis has run so far (each carries a core's batch of requests).
script_calls() {
  redis-cli -p "$redis_port" info commandstats | awk -F'[:=,]' '/^cmdstat_evalsha:/ { print $3; exit } END { if (!NR) print 0 }'
}

# The machine's idle time so far (idle + iowait, all CPUs), in clock ticks.
idle_ticks() { awk '/^cpu / { print $5 + $6 }' /proc/stat; }

# "req/s server-µs redis-µs requests-per-script-call idle-µs wrk-µs" of wrk on PATH, the
# µs being per request.
rps() {
  "${others[@]}" wrk -t 2 -c "$conns" -d 1s -H "Authorization: Bearer $key" "$base$1" >/dev/null  # warm-up
  local out server0 redis0 calls0 idle0 server1 redis1 calls1 idle1
  server0=$(cpu_ticks "$server_pid")
  redis0=$(cpu_ticks "$redis_pid")
  calls0=$(script_calls)
  idle0=$(idle_ticks)
  # wrk's own CPU time, from time(1), as "WRK_CPU user system" on stderr.
  out=$("${others[@]}" /usr/bin/time -f "WRK_CPU %U %S" wrk -t 2 -c "$conns" -d "${duration}s" \
          -H "Authorization: Bearer $key" "$base$1" 2>&1)
  server1=$(cpu_ticks "$server_pid")
  redis1=$(cpu_ticks "$redis_pid")
  calls1=$(script_calls)
  idle1=$(idle_ticks)
  if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers for $1:" >&2; echo "$out" >&2; exit 1; fi
  awk -v s="$((server1 - server0))" -v r="$((redis1 - redis0))" -v c="$((calls1 - calls0))" \
      -v idle="$((idle1 - idle0))" -v hz="$(getconf CLK_TCK)" '
    / requests in / { n = $1 } /Requests\/sec/ { rate = $2 } /^WRK_CPU / { w = $2 + $3 }
    END { printf "%.0f %.2f %.2f %.1f %.2f %.2f", rate, s * 1e6 / hz / n, r * 1e6 / hz / n, c ? n / c : 0,
                 idle * 1e6 / hz / n, w * 1e6 / n }' <<<"$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for round in $(seq 1 "$rounds"); do
  for mode in single fleet; do
    if [[ $mode == fleet ]]; then STOREAPI_REDIS_URL=$redis_url start_server; else start_server; fi
    echo "$(rps /v1/store)" >>"$work/$mode.store"
    echo "$(rps "/v1/orders/$order")" >>"$work/$mode.order"
    stop_server
  done
  echo "round $round done" >&2
done

# Column COL (1 req/s, 2 server µs/request, 3 Redis µs/request, 4 requests per script
# call, 5 idle µs/request, 6 wrk µs/request) of a mode's runs, median.
column() { cut -d' ' -f"$2" <"$1" | median; }
endpoint_name() { [[ $1 == store ]] && echo "GET /v1/store" || echo "GET /v1/orders/{id}"; }
printf '%-22s %10s %10s %8s %14s %14s %14s %10s\n' endpoint single fleet ratio "server µs/req" "fleet server" "redis µs/req" "req/call"
for endpoint in store order; do
  s=$(column "$work/single.$endpoint" 1)
  f=$(column "$work/fleet.$endpoint" 1)
  name=$(endpoint_name "$endpoint")
  printf '%-22s %10.0f %10.0f %8.2f %14.2f %14.2f %14.2f %10.1f\n' "$name" "$s" "$f" "$(awk -v f="$f" -v s="$s" 'BEGIN { print f / s }')" \
    "$(column "$work/single.$endpoint" 2)" "$(column "$work/fleet.$endpoint" 2)" "$(column "$work/fleet.$endpoint" 3)" \
    "$(column "$work/fleet.$endpoint" 4)"
done
# Where the machine's CPU time went, per request: the CPUs' time over req/s is the whole
# (2 CPUs at 100k req/s: 20 µs), and what the server, Redis, wrk and idling do not account
# for is everything else (PostgreSQL, kernel threads).
cpus=$(nproc)
echo
printf '%-22s %-7s %9s %9s %9s %9s %9s %9s
' "µs per request" mode total server redis wrk idle other
for endpoint in store order; do
  name=$(endpoint_name "$endpoint")
  for mode in single fleet; do
    f=$work/$mode.$endpoint
    total=$(awk -v r="$(column "$f" 1)" -v n="$cpus" 'BEGIN { print n * 1e6 / r }')
    server=$(column "$f" 2) redis=$([[ $mode == fleet ]] && column "$f" 3 || echo 0)
    wrk_us=$(column "$f" 6) idle=$(column "$f" 5)
    printf '%-22s %-7s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f
' "$name" "$mode" "$total" "$server" "$redis" "$wrk_us" "$idle" \
      "$(awk -v t="$total" -v a="$server" -v b="$redis" -v c="$wrk_us" -v d="$idle" 'BEGIN { print t - a - b - c - d }')"
  done
done
