#!/usr/bin/env bash
# What TLS termination by nginx (dist/nginx/storeapi.conf, upstream keep-alive) costs:
# GET /healthz straight to storeapi over HTTP vs through nginx over HTTPS, both with wrk
# keep-alive connections, sides alternated for ROUNDS rounds; medians reported. No
# database needed (the health check answers without one).
#   bench/load/tls-proxy.sh   CONNS=32 DURATION=5 ROUNDS=3 THREADS=1 by default
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
conns=${CONNS:-32}
duration=${DURATION:-5}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
server_pid="" nginx_pid=""
trap '[[ -n $nginx_pid ]] && kill "$nginx_pid"; [[ -n $server_pid ]] && kill "$server_pid"; wait 2>/dev/null; rm -rf "$work"' EXIT

STOREAPI_LISTEN=127.0.0.1:0 STOREAPI_THREADS=${THREADS:-1} STOREAPI_ACCESS_LOG=off \
STOREAPI_DATABASE_URL=postgresql://127.0.0.1:1/none "$root/build/storeapi" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 300); do grep -q "listening on" "$work/server.err" && break; sleep 0.1; done
server_port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/server.err")
source "$root/tests/support/nginx_front.sh"
start_nginx_front "$work" "$server_port"

# wrk_run URL: "req/s p99(ms)".
wrk_run() {
  wrk -t 2 -c "$conns" -d 2s "$1" >/dev/null  # warm-up
  local out
  out=$(wrk -t 2 -c "$conns" -d "${duration}s" --latency "$1")
  awk '/Requests\/sec/ { rps = $2 } $1 == "99%" { v = $2; n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /[^m]s$/) n *= 1000; p99 = n }
       END { printf "%.0f %.2f\n", rps, p99 }' <<<"$out"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/direct" && : >"$work/tls"
for round in $(seq "$rounds"); do
  wrk_run "http://127.0.0.1:$server_port/healthz" >>"$work/direct"
  wrk_run "https://127.0.0.1:$proxy_port/healthz" >>"$work/tls"
  echo "round $round: direct $(tail -1 "$work/direct"), through nginx TLS $(tail -1 "$work/tls")" >&2
done
direct_rps=$(cut -d' ' -f1 "$work/direct" | median) tls_rps=$(cut -d' ' -f1 "$work/tls" | median)
direct_p99=$(cut -d' ' -f2 "$work/direct" | median) tls_p99=$(cut -d' ' -f2 "$work/tls" | median)
echo "GET /healthz, $conns connections, ${duration}s x $rounds rounds, medians:"
echo "  direct HTTP:          $direct_rps req/s, p99 $direct_p99 ms"
echo "  nginx TLS (1 worker): $tls_rps req/s, p99 $tls_p99 ms"
awk -v a="$tls_rps" -v b="$direct_rps" 'BEGIN { printf "  ratio TLS/direct:     %.2f\n", a / b }'
