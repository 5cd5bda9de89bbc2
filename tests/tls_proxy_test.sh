#!/usr/bin/env bash
# nginx with dist/nginx/storeapi.conf and a throwaway certificate in front of a real
# storeapi: requests over TLS get the server's status and Request-Id, nginx keeps one
# connection to the server alive across requests, and the access log names the client
# from X-Forwarded-For only when the request came through the trusted proxy; a body over
# the server's limit gets the API's JSON 413 through nginx.
#   tests/tls_proxy_test.sh BUILD_DIR
set -euo pipefail
build=$1
# The release the server names on /healthz.
version=$("$build/storeapi" --version | cut -d" " -f2)
source_root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server_pid="" nginx_pid=""
cleanup() {
  [[ -n $nginx_pid ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "tls proxy test: $*" >&2
  for f in "$work"/server.err "$work"/nginx-error.log; do [[ -f $f ]] && { echo "--- $f"; tail -20 "$f"; } >&2; done
  exit 1
}
source "$source_root/tests/support/wait_for.sh"

# No database: what goes through the proxy here (health, the document, a 401) needs none.
# A bad proxy address is refused at start, naming the setting.
if STOREAPI_TRUSTED_PROXY=proxy.example "$build/storeapi" 2>"$work/bad.err"; then fail "a bad STOREAPI_TRUSTED_PROXY was accepted"; fi
grep -q "STOREAPI_TRUSTED_PROXY: expected an IPv4 or IPv6 address" "$work/bad.err" || fail "no message for a bad STOREAPI_TRUSTED_PROXY"

# No metrics listener: its fixed default port may be taken by another server on this machine.
STOREAPI_LISTEN=127.0.0.1:0 STOREAPI_METRICS_LISTEN=off STOREAPI_THREADS=1 STOREAPI_TRUSTED_PROXY=127.0.0.1 STOREAPI_ACCESS_LOG=json \
STOREAPI_DATABASE_URL=postgresql://127.0.0.1:1/none "$build/storeapi" >"$work/server.log" 2>"$work/server.err" &
server_pid=$!
wait_for grep -q "listening on" "$work/server.err" || fail "storeapi did not start"
server_port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/server.err")

source "$source_root/tests/support/nginx_front.sh"
start_nginx_front "$work" "$server_port" || fail "nginx did not start"
https=(curl -sS --cacert "$work/cert.pem" --interface 127.0.0.2 --max-time 10)

# Through TLS: the server's status, body and Request-Id.
"${https[@]}" -D "$work/h1" -o "$work/b1" -H "X-Forwarded-For: 198.51.100.1" "https://127.0.0.1:$proxy_port/healthz"
grep -q '^HTTP/1.1 200' "$work/h1" || fail "GET /healthz through nginx: $(head -1 "$work/h1")"
grep -qi '^Request-Id: req_[0-9a-f]\{20\}' "$work/h1" || fail "no Request-Id through nginx"
[[ $(cat "$work/b1") == '{"status":"ok","version":"'"$version"'"}' ]] || fail "GET /healthz body through nginx: $(cat "$work/b1")"
"${https[@]}" -D "$work/h2" -o "$work/b2" "https://127.0.0.1:$proxy_port/v1/store"
grep -q '^HTTP/1.1 401' "$work/h2" || fail "GET /v1/store without a key through nginx: $(head -1 "$work/h2")"
request_id=$(sed -n 's/^[Rr]equest-[Ii]d: \(req_[0-9a-f]*\).*/\1/p' "$work/h2")
grep -q "\"request_id\":\"$request_id\"" "$work/b2" || fail "the error's request_id is not the Request-Id header"
for _ in 1 2 3 4 5; do "${https[@]}" -o /dev/null "https://127.0.0.1:$proxy_port/openapi.json"; done

# nginx kept its connection to the server: one, reused by the seven requests (counted
# before the next check: the server closes the connection of a refused body).
connections=$(ss -Htn state established "( sport = :$server_port )" | wc -l)
[[ $connections == 1 ]] || fail "nginx holds $connections connections to storeapi, expected 1 kept alive"

# A body over the server's 64 KiB limit gets the API's JSON 413 with its Request-Id, not
# nginx's HTML page (nginx's client_max_body_size is above the server's limit). Several
# times and up to nearly nginx's limit: a server that closed with the body's rest unread
# made the kernel reset the connection, and nginx answered 502 in about 1 run of 3 at 70 KB
# (the server now drops the rest before it closes).
for size in 70000 900000 70000 900000 70000 900000; do
  head -c $size /dev/zero | tr '\0' 'x' >"$work/big-body"
  "${https[@]}" -D "$work/h3" -o "$work/b3" -H "Content-Type: application/json" --data-binary @"$work/big-body" \
    "https://127.0.0.1:$proxy_port/v1/orders/00000000-0000-0000-0000-000000000000/fulfillment"
  grep -q '^HTTP/1.1 413' "$work/h3" || fail "a $size-byte body through nginx: $(head -1 "$work/h3") $(head -c 200 "$work/b3")"
  request_id=$(sed -n 's/^[Rr]equest-[Ii]d: \(req_[0-9a-f]*\).*/\1/p' "$work/h3")
  [[ -n $request_id ]] || fail "the 413 through nginx has no Request-Id"
  grep -q "\"code\":\"payload_too_large\".*\"request_id\":\"$request_id\"" "$work/b3" ||
    fail "the 413 through nginx is not the API's JSON error: $(head -c 200 "$work/b3")"
done

# Straight to the server from another address, with a forged X-Forwarded-For.
curl -sS --interface 127.0.0.3 -o /dev/null -H "X-Forwarded-For: 198.51.100.1" "http://127.0.0.1:$server_port/healthz"

# The access log is complete once the server has stopped (SIGTERM drains it).
kill "$nginx_pid"; wait "$nginx_pid" 2>/dev/null || true; nginx_pid=""
kill "$server_pid"; wait "$server_pid" || fail "storeapi did not exit 0 on SIGTERM"; server_pid=""
proxied=$(grep -c '"client":"127\.0\.0\.2","method":"GET"' "$work/server.log" || true)
[[ $proxied -eq 7 ]] || fail "requests through nginx are not logged as from 127.0.0.2 ($proxied lines)"
grep -q '"client":"127\.0\.0\.3:[0-9]*","method":"GET","route":"/healthz"' "$work/server.log" ||
  fail "the direct request is not logged as from its peer"
grep -q '198\.51\.100\.1' "$work/server.log" && fail "a forged X-Forwarded-For reached the access log"
# A refusal before the request is whole (the 413: "method":"-") has no headers to read
# X-Forwarded-For from, and is logged with its peer's address.
grep '"client":"127\.0\.0\.1:' "$work/server.log" | grep -qv '"method":"-"' &&
  fail "a proxied request was logged with the proxy's address"
echo "tls proxy test: TLS, Request-Id, upstream keep-alive and client addresses as expected"
