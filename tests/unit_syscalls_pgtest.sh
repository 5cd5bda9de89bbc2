#!/usr/bin/env bash
# The shipped units' system-call filters against the calls the binaries make. CI has no
# systemd as PID 1 to run them under the real filter, so this is checked instead: each
# unit's SystemCallFilter= lines are evaluated as systemd does (the first, an allow list,
# sets the default; each later line adds its calls, or with ~ removes them; groups
# expanded by `systemd-analyze syscall-filter`), and every call `strace -f -c` sees the
# binary make — from exec through start, real work (the server: a key lookup, a read, a
# keyed write, the rate limit in Redis, a read served by a streaming standby
# (STOREAPI_REPLICA_URLS); the dispatcher: a webhook delivered over HTTPS to
# a loopback receiver, an e-mail over STARTTLS to a loopback relay), a scrape and a SIGTERM drain — must be allowed. Before sched_setaffinity was allowed again, the
# server's unit failed here (its `~@resources` took it away, and with it the pinning).
# Then the pinning's failure path, with strace injecting EPERM into sched_setaffinity as
# such a filter would: the server logs that each core runs unpinned and /metrics says
# storeapi_core_pinned 0 for each (it used to ignore the failure).
# The binaries run as the runtime role `storeapi` (docs/DEPLOY.md "Database roles") on a
# primary and its standby of the test's own (tools/dev-db's cluster, in a directory of its own).
#   tests/unit_syscalls_pgtest.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "unit syscalls test: $*" >&2; exit 1; }
command -v strace >/dev/null || { echo "unit syscalls test: skipped, strace is not installed"; exit 77; }
# A sanitizer's runtime makes calls of its own that the shipped (plain) binaries never make.
sanitize=$(meson introspect "$build" --buildoptions |
           python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"))')
[[ $sanitize == none ]] || { echo "unit syscalls test: skipped in a $sanitize build (it checks the plain binaries)"; exit 77; }
work=$(mktemp -d)
standby=$work/standby
bin=/usr/lib/postgresql/15/bin
as_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
traced_pids=() children=()
# The traced binaries first: strace ends with them (a signalled strace would only detach).
cleanup() {
  set +e
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${traced_pids[@]}"; do wait "$pid" 2>/dev/null; done
  [[ -f $standby/data/postmaster.pid ]] && as_owner "$bin/pg_ctl" -D "$standby/data" -m immediate stop >/dev/null
  STOREAPI_DEV_DIR=$work/primary "$source_root/tools/dev-db" stop
  rm -rf "$work"
}
trap cleanup EXIT
source "$source_root/tests/support/wait_for.sh"

# The calls a unit's SystemCallFilter= lines allow, one per line.
allowed_by() {
  python3 - "$1" <<'PY'
import re, subprocess, sys

def expand(name):
    if not name.startswith("@"):
        return {name}
    out = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager", name],
                         check=True, capture_output=True, text=True).stdout
    calls = set()
    for line in out.splitlines()[1:]:
        word = line.strip()
        if word and not word.startswith("#"):
            calls |= expand(word)
    return calls

allowed = None
for line in open(sys.argv[1]):
    m = re.match(r"SystemCallFilter=(~?)(.*)", line.strip())
    if not m:
        continue
    deny, names = m.group(1) == "~", m.group(2).split()
    calls = set().union(*(expand(n) for n in names))
    if allowed is None:
        if deny:
            sys.exit("a unit whose first SystemCallFilter= is a deny list: not what this test evaluates")
        allowed = calls
    elif deny:
        allowed -= calls
    else:
        allowed |= calls
print("\n".join(sorted(allowed or ())))
PY
}

# Starts `strace ARGS -- BINARY` with the settings in "$@" set; sets $traced (strace's pid),
# $child (the binary's) and $err (its stderr file).
start_traced() {
  local name=$1 binary=$2; shift 2
  local -a strace_args=()
  while [[ $1 != -- ]]; do strace_args+=("$1"); shift; done
  shift
  err=$work/$name.err
  env "$@" strace -f "${strace_args[@]}" -- "$build/$binary" >"$work/$name.out" 2>"$err" &
  traced=$!
  traced_pids+=("$traced")
  wait_for pgrep -P "$traced" >/dev/null || fail "$binary did not start under strace"
  child=$(pgrep -P "$traced")
  children+=("$child")
}
metrics_port() { sed -n 's/.*metrics on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1; }

server_settings=(STOREAPI_LISTEN=127.0.0.1:0
                 STOREAPI_METRICS_LISTEN=127.0.0.1:0 STOREAPI_THREADS=2 STOREAPI_ACCESS_LOG=json)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# Real work for the traced binaries, on a cluster of the test's own and its streaming
# standby: a store with a key, a product and a webhook endpoint on a loopback HTTPS
# receiver, and a Redis for the rate limit.
STOREAPI_DEV_DIR=$work/primary "$source_root/tools/dev-db" start || fail "the primary did not start"
db_url=$(STOREAPI_DEV_DIR=$work/primary "$source_root/tools/dev-db" url)
superuser=${db_url#postgresql://} superuser=${superuser%%@*}
primary_port=${db_url##*:} primary_port=${primary_port%%/*}
# What the traced binaries connect as: the runtime role, so a grant it lacks fails them.
runtime_url=postgresql://storeapi@127.0.0.1:$primary_port/storeapi
mkdir "$standby"
[[ $(id -u) -eq 0 ]] && chown postgres: "$standby"
as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U "$superuser" -D "$standby/data" -R -X stream -c fast \
  >"$standby/basebackup.log" 2>&1 || fail "pg_basebackup: $(cat "$standby/basebackup.log")"
standby_port=$(free_port)
printf "port = %s\nunix_socket_directories = '%s'\n" "$standby_port" "$standby" | as_owner tee -a "$standby/data/postgresql.conf" >/dev/null
as_owner "$bin/pg_ctl" -D "$standby/data" -l "$standby/server.log" -w -t 60 start >/dev/null \
  || fail "the standby did not start: $(cat "$standby/server.log")"
export STOREAPI_WEBHOOK_ALLOW_NETWORKS=127.0.0.1  # the receiver is on loopback
admin() { STOREAPI_DATABASE_URL=$db_url "$build/storeapi-admin" "$@"; }
admin migrate >/dev/null || fail "migrate"
store=$(admin store create --name Syscalls --slug "syscalls-$$" --currency EUR --plan advanced \
          --owner-email owner@syscalls.example | json_field id)
admin seed --store "$store" --orders 1 --products 1 --customers 1 --bookings 0 >/dev/null || fail "seed"
key=$(admin key create --store "$store" --name traced --access full | json_field key)
read -r product variant < <(psql -qAtX "$db_url" -c "select product_id, id from variants where store_id = '$store'
  and deleted_at is null and stock is not null order by created_at, id limit 1" | tr '|' ' ')
[[ -n $variant ]] || fail "no variant to write"
# The receiver speaks HTTPS with a certificate for 127.0.0.1, which the dispatcher is
# given to trust (STOREAPI_WEBHOOK_CA_FILE): the delivery goes through TLS.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/receiver.key" -out "$work/receiver.crt" >/dev/null 2>&1 || fail "openssl req"
receiver_port=$(free_port)
python3 -c 'import http.server, ssl, sys
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[2], "a") as received:
            received.write(self.headers.get("webhook-id", "") + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(sys.argv[3], sys.argv[4])
server.socket = tls.wrap_socket(server.socket, server_side=True)
server.serve_forever()' "$receiver_port" "$work/received" "$work/receiver.crt" "$work/receiver.key" &
children+=($!)
admin webhook add --store "$store" --url "https://127.0.0.1:$receiver_port/hook" >/dev/null || fail "webhook add"
# An SMTP relay (tests/dispatch/smtp_sink.py) offering STARTTLS with the same certificate,
# and a mail queued for it: the dispatcher must send it over STARTTLS (required).
mkdir "$work/mails"
coproc sink { exec /usr/bin/python3 "$source_root/tests/dispatch/smtp_sink.py" "$work/mails" 0 "$work/receiver.crt" "$work/receiver.key"; }
children+=($sink_PID)
read -r -t 30 smtp_port <&"${sink[0]}" || fail "the SMTP sink did not start"
psql -qAtX "$db_url" -c "select api.queue_notification('$store', 'customer', 'booking_canceled', 'cy@example.com',
  '{\"customer_name\":\"Cy\",\"product_name\":\"Call\",\"booking_date\":\"2026-12-02\",\"booking_time\":\"09:00\",\"timezone\":\"UTC\"}'::jsonb)" \
  >/dev/null || fail "queue a mail"
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
children+=($!)
wait_for redis-cli -p "$redis_port" ping >/dev/null 2>&1 || fail "redis-server did not start"

# The server: start, a key lookup, a read and a keyed write (the rate limit in Redis), a
# read on the standby, a scrape, SIGTERM.
start_traced server storeapi -c -o "$work/server.calls" -- "${server_settings[@]}" \
  STOREAPI_DATABASE_URL="$runtime_url" STOREAPI_REDIS_URL="redis://127.0.0.1:$redis_port" \
  STOREAPI_REPLICA_URLS="postgresql://storeapi@127.0.0.1:$standby_port/storeapi"
wait_for grep -q "listening on" "$err" || fail "storeapi did not start: $(cat "$err")"
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$err")
curl -sS -o /dev/null "http://127.0.0.1:$port/healthz"
curl -sS -o /dev/null -H "Authorization: Bearer sk_live_$(printf 'x%.0s' {1..32})" "http://127.0.0.1:$port/v1/store"
status=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/products/$product")
[[ $status == 200 ]] || fail "the traced server's read answered $status"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $key" -H "Idempotency-Key: traced-1" \
           -H 'Content-Type: application/json' -d '{"mode":"adjust","quantity":1}' \
           "http://127.0.0.1:$port/v1/products/$product/variants/$variant/stock")
[[ $status == 200 ]] || fail "the traced server's write answered $status"
[[ $(redis-cli -p "$redis_port" exists "storeapi:{$store}:rate") == 1 ]] || fail "the traced server did not use Redis"
# A read the server routes to the standby (once it has replayed the write): counted there.
standby_reads() { curl -sS "http://127.0.0.1:$(metrics_port "$err")/metrics" | sed -n 's/^storeapi_db_reads_total{target="standby"} //p'; }
read_on_standby() {
  local before
  before=$(standby_reads)
  [[ $(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/products/$product") == 200 ]] \
    && awk -v before="$before" -v after="$(standby_reads)" 'BEGIN { exit !(after > before) }'
}
wait_for read_on_standby || fail "the traced server served no read from the standby: $(cat "$err")"
curl -sS -o /dev/null "http://127.0.0.1:$(metrics_port "$err")/metrics"
kill -TERM "$child"
wait "$traced" || fail "storeapi under strace did not exit 0: $(cat "$err")"

# The dispatcher: start (its LISTEN connection and first poll), the write's webhook
# delivered to the receiver, a scrape, SIGTERM.
start_traced dispatch storeapi-dispatch -c -o "$work/dispatch.calls" -- \
  STOREAPI_DATABASE_URL="$runtime_url" STOREAPI_DISPATCH_METRICS_LISTEN=127.0.0.1:0 STOREAPI_DISPATCH_POLL_MS=200 \
  STOREAPI_WEBHOOK_CA_FILE="$work/receiver.crt" STOREAPI_SMTP_URL="smtp://127.0.0.1:$smtp_port" STOREAPI_SMTP_TLS=required \
  STOREAPI_SMTP_CA_FILE="$work/receiver.crt"
wait_for grep -q "metrics on" "$err" || fail "storeapi-dispatch did not start: $(cat "$err")"
wait_for test -s "$work/received" || fail "the traced dispatcher delivered no webhook: $(cat "$err")"
wait_for compgen -G "$work/mails/*.json" >/dev/null || fail "the traced dispatcher sent no mail: $(cat "$err")"
grep -q '"tls": true' "$work"/mails/*.json || fail "the mail did not come over STARTTLS: $(cat "$work"/mails/*.json)"
curl -sS -o /dev/null "http://127.0.0.1:$(metrics_port "$err")/metrics"
kill -TERM "$child"
wait "$traced" || fail "storeapi-dispatch under strace did not exit 0: $(cat "$err")"

for pair in storeapi:server storeapi-dispatch:dispatch; do
  unit=${pair%%:*}.service calls=$work/${pair#*:}.calls
  allowed_by "$build/dist/$unit" >"$work/allowed"
  [[ -s $work/allowed ]] || fail "$unit has no SystemCallFilter="
  # strace -c's table: the call's name is the last column of each row between the rules.
  awk '/^-----/ { rules++; next } rules == 1 && NF { print $NF }' "$calls" | sort -u >"$work/used"
  [[ -s $work/used ]] || fail "strace counted no calls for $unit"
  denied=$(comm -23 "$work/used" "$work/allowed")
  [[ -z $denied ]] || fail "$unit's SystemCallFilter= refuses what ${pair%%:*} calls: $(echo $denied)"
  echo "unit syscalls test: $unit allows all $(wc -l <"$work/used") calls ${pair%%:*} made"
done

# Pinning refused, as a filter without sched_setaffinity refuses it.
start_traced unpinned storeapi -qq -o /dev/null -e trace=sched_setaffinity -e inject=sched_setaffinity:error=EPERM -- \
  "${server_settings[@]}" STOREAPI_DATABASE_URL="$runtime_url"
wait_for grep -q "listening on" "$err" || fail "storeapi did not start without pinning: $(cat "$err")"
for core in 0 1; do
  grep -q "storeapi: core $core runs unpinned: pinning it to CPU [0-9]* failed: Operation not permitted" "$err" ||
    fail "no log line for core $core's failed pinning: $(cat "$err")"
done
scrape=$(curl -sS "http://127.0.0.1:$(metrics_port "$err")/metrics")
for core in 0 1; do
  grep -qx "storeapi_core_pinned{core=\"$core\"} 0" <<<"$scrape" ||
    fail "/metrics does not say core $core is unpinned: $(grep storeapi_core_pinned <<<"$scrape")"
done
kill -TERM "$child"
wait "$traced" || fail "the unpinned storeapi did not exit 0"
echo "unit syscalls test: a refused sched_setaffinity is logged and exported per core"
