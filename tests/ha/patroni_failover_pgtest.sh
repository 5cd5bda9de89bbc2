#!/usr/bin/env bash
# Failover by Patroni, as docs/DEPLOY.md "High availability" sets it up: etcd, two Patroni
# nodes running dist/patroni/patroni.yml (only the timings shortened, so the test stays
# bounded), a leader and its synchronous standby; storeapi node A on the multi-host URL
# (target_session_attrs=read-write), node B through HAProxy running dist/patroni/haproxy.cfg
# (Patroni's /primary check). Idempotent writers go to both nodes; the leader's PostgreSQL
# is killed (pg_ctl -m immediate) and Patroni promotes the synchronous standby by itself.
# Checked: key by key (each write's Idempotency-Key is its movement's note), every
# acknowledged write is in the new leader's stock history exactly once, nothing doubled
# (applied but unacknowledged: reported); writes in flight between the kill and the
# promotion were acknowledged; the clients saw only 200, 503 (or 409 idempotency_in_progress for a
# retry whose first attempt still waits) or a failed connection, never a 500; a
# key revoked afterwards is refused by both nodes; storeapi-dispatch, on the multi-host URL
# too, delivers every event (before, during and after the failover) to a webhook, as the
# receiver counts them by webhook-id: once each, or twice for a delivery first received
# before the promotion (at least once: a claim or outcome the old leader lost is done
# again). Printed: the recovery time (the kill to
# the first acknowledged write, on each node) with the timings used (bench/RESULTS.md).
# The shipped file must keep synchronous_mode: true and primary_start_timeout: 0 (checked
# below): without the first a promoted standby may lack acknowledged writes, without the
# second Patroni restarts the crashed primary in place for up to 300 s (no promotion, and
# this test fails with "Patroni promoted nobody").
#   tests/ha/patroni_failover_pgtest.sh BUILD_DIR
set -euo pipefail
build=$1
source_root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v haproxy >/dev/null; then
  echo "SKIP: haproxy is not installed (tools/deps installs it)"
  exit 77
fi
test_name="patroni failover test"
source "$source_root/tests/ha/patroni_pair.sh"
haproxy_pid="" receiver_pid="" writer_pids=()
cleanup() {
  for pid in "${writer_pids[@]}" "${node_pids[@]}" $haproxy_pid $receiver_pid; do kill "$pid" 2>/dev/null || true; done
  patroni_pair_cleanup
}
trap cleanup EXIT

start_etcd
write_patroni_config
start_patroni 1
start_patroni 2
wait_for synchronous || fail "no synchronous standby: $(roles || true)"

# --- the database, two storeapi nodes ----------------------------------------------------
create_storeapi_database
# The nodes and the dispatcher connect as the runtime role (docs/DEPLOY.md "Database
# roles"), given its rights by `migrate` run again: a grant it lacks fails the test.
runtime_password=$(openssl rand -hex 16)
psql -qAt "postgresql://postgres@$hosts/postgres?target_session_attrs=read-write" \
  -c "create role storeapi login password '$runtime_password'" >/dev/null || fail "create role storeapi"
admin migrate >/dev/null || fail "migrate (the runtime role's grants)"
runtime_url="postgresql://storeapi:$runtime_password@$hosts/storeapi?target_session_attrs=read-write"

haproxy_port=$(free_port)
sed -e "s/^    bind \*:5000\$/    bind 127.0.0.1:$haproxy_port/" \
    -e "s/^    server pg1 10.0.0.11:5432 \(.*\) check port 8008\$/    server pg1 127.0.0.1:${pg_port[1]} \1 check port ${rest_port[1]}/" \
    -e "s/^    server pg2 10.0.0.12:5432 \(.*\) check port 8008\$/    server pg2 127.0.0.1:${pg_port[2]} \1 check port ${rest_port[2]}/" \
    "$source_root/dist/patroni/haproxy.cfg" >"$work/haproxy.cfg"
grep -q "check port ${rest_port[2]}\$" "$work/haproxy.cfg" || fail "dist/patroni/haproxy.cfg changed: cannot point it at the test's nodes"
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
haproxy_pid=$!

start_node a "$runtime_url"
start_node b "postgresql://storeapi:$runtime_password@127.0.0.1:$haproxy_port/storeapi"

# A webhook endpoint that accepts everything and writes down each delivery's webhook-id
# and when it came (one line each, as received: a delivery made twice is two lines), and the dispatcher
# delivering to it (on loopback, which the admin tool and the dispatcher refuse unless
# allowed).
export STOREAPI_WEBHOOK_ALLOW_NETWORKS=127.0.0.1
receiver_port=$(free_port)
python3 -c 'import http.server, sys, threading, time
lock = threading.Lock()
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with lock, open(sys.argv[2], "a") as received:
            received.write(self.headers.get("webhook-id", "(none)") + " " + str(int(time.time() * 1000)) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()' "$receiver_port" "$work/received" &
receiver_pid=$!
admin webhook add --store "$store" --url "http://127.0.0.1:$receiver_port/hook" >/dev/null || fail "webhook add"
STOREAPI_DATABASE_URL=$runtime_url STOREAPI_DISPATCH_METRICS_LISTEN=off STOREAPI_DISPATCH_POLL_MS=500 \
  "$build/storeapi-dispatch" >"$work/dispatch.log" 2>&1 &
node_pids+=($!)

# --- writers, the kill ---------------------------------------------------------------------
# Each writer adjusts the stock by 1 per operation, retrying an operation with its own
# Idempotency-Key (also the movement's note) until it is acknowledged; attempts alternate
# between the nodes. One line per attempt: key status node end_ms start_ms.
writer() {
  local w=$1 n=0 attempt=0 key status end=$2
  while (( $(now_ms) < end )); do
    key="w$w-$n"
    while (( $(now_ms) < end + 30000 )); do
      local node=$([[ $(( (w + attempt) % 2 )) == 0 ]] && echo a || echo b)
      attempt=$((attempt + 1))
      local started=$(now_ms)
      status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
        -H "Authorization: Bearer $key_all" -H "Idempotency-Key: $key" -H 'Content-Type: application/json' \
        -d "{\"mode\":\"adjust\",\"quantity\":1,\"note\":\"$key\"}" \
        "http://127.0.0.1:${node_port[$node]}/v1/products/$product/variants/$variant/stock" || true)
      echo "$key $status $node $(now_ms) $started" >>"$work/writer$w.out"
      [[ $status == 200 ]] && break
      sleep 0.05
    done
    n=$((n + 1))
  done
}
key_all=$key
leader=$(curl -sf "http://127.0.0.1:${rest_port[1]}/primary" >/dev/null && echo 1 || echo 2)
standby=$((3 - leader))
writers_end=$(( $(now_ms) + 12000 ))
for w in 1 2 3 4; do writer "$w" "$writers_end" & writer_pids+=($!); done
# The kill comes once writes flow (a count of acknowledgements, not a time).
flowing() { (( $(cat "$work"/writer*.out 2>/dev/null | awk '$2 == 200' | wc -l) >= 20 )); }
wait_for flowing || fail "no writes acknowledged before the kill"
killed_at=$(now_ms)
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/pg$leader" -m immediate stop >/dev/null || fail "pg_ctl stop -m immediate"
dead_at=$(now_ms)
WAIT_SECONDS=60 wait_for curl -sf "http://127.0.0.1:${rest_port[$standby]}/primary" || fail "Patroni promoted nobody"
promoted_at=$(now_ms)
# Strict synchronous mode: the new leader's commits wait until a standby is synchronous
# again — here the old leader, rejoining as a standby.
wait_for synchronous || fail "the old leader did not rejoin as a synchronous standby: $(roles || true)"
rejoined_at=$(now_ms)
for pid in "${writer_pids[@]}"; do wait "$pid"; done
writer_pids=()
cat "$work"/writer*.out >"$work/attempts"

# --- the invariants ------------------------------------------------------------------------
# 409 idempotency_in_progress: the retry of a write whose commit still waits for a
# synchronous standby (it holds its key until it ends); the retry after it replays.
unexpected=$(awk '$2 != 200 && $2 != 503 && $2 != 409 && $2 != "000"' "$work/attempts" | sed -n 1,5p)
[[ -z $unexpected ]] || fail "answers other than 200, 503, 409 or no connection: $unexpected"
awk '$2 == 200 {print $1}' "$work/attempts" | sort >"$work/acknowledged"
[[ $(wc -l <"$work/acknowledged") -gt 0 ]] || fail "nothing acknowledged"
[[ -z $(uniq -d "$work/acknowledged") ]] || fail "a key acknowledged twice (only one attempt per key ends in 200)"
sql "select note from stock_movements where variant_id = '$variant' and note like 'w%' order by 1" | sort >"$work/applied"
missing=$(comm -23 "$work/acknowledged" "$work/applied" | sed -n 1,5p)
[[ -z $missing ]] || fail "acknowledged but not on the new leader: $missing"
doubled=$(uniq -d "$work/applied" | sed -n 1,5p)
[[ -z $doubled ]] || fail "applied twice: $doubled"
[[ $(sql "select stock from variants where id = '$variant'") == $(( 1000 + $(wc -l <"$work/applied") )) ]] \
  || fail "the stock is not the start plus the movements"
# Applied once though never acknowledged (its answer lost in the fault): allowed, reported.
applied_unacknowledged=$(comm -13 "$work/acknowledged" "$work/applied" | wc -l)
# The writes crossed the fault: operations in flight while there was no leader (first
# sent by the promotion, acknowledged after the kill), retried with their keys (a writer
# retries its operation until it is answered, so none starts during the outage).
crossed=$(sort -k5,5n "$work/attempts" | awk -v from="$killed_at" -v to="$promoted_at" '
  !($1 in first) { first[$1] = $5 }
  $2 == 200 && first[$1] <= to && $4 >= from { n++ }
  END { print n + 0 }')
(( crossed >= 1 )) || fail "no write in flight between the kill and the promotion was acknowledged"
# On one node: from the kill to the first write acknowledged of those sent once the old
# leader was gone (only a new leader can have taken them).
recovery() { sort -k4,4n "$work/attempts" | awk -v since="$killed_at" -v dead="$dead_at" -v node="$1" \
  '!found && $2 == 200 && $3 == node && $5 >= dead { print $4 - since; found = 1 }'; }  # reads all: no SIGPIPE
rec_a=$(recovery a) rec_b=$(recovery b)
[[ -n $rec_a && -n $rec_b ]] || fail "no write acknowledged after the kill on node a ($rec_a) or b ($rec_b)"

# A key revoked on the new leader is refused by both nodes (their LISTEN moved).
revoke_key=$(admin key create --store "$store" --name revoked --access read)
revoke_id=$(json_field id <<<"$revoke_key")
revoke_secret=$(json_field key <<<"$revoke_key")
for node in a b; do
  [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $revoke_secret" "http://127.0.0.1:${node_port[$node]}/v1/store") == 200 ]] \
    || fail "a new key refused on node $node"
done
admin key revoke --key "$revoke_id" >/dev/null 2>"$work/revoke.err" || fail "revoke"
refused() { [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $revoke_secret" "http://127.0.0.1:${node_port[$1]}/v1/store") == 401 ]]; }
for node in a b; do
  WAIT_SECONDS=10 wait_for refused "$node" || fail "a revoked key still works on node $node"
done
grep -q "statement failed" "$work"/node-*.log && fail "a node logged a failed statement"
# Every event has reached the webhook, whichever primary it was written on.
undelivered() { sql "select count(*) from events e where e.store_id = '$store' and not exists (select 1 from
  webhook_deliveries d where d.store_id = e.store_id and d.event_id = e.id and d.status = 'succeeded')"; }
events=$(sql "select count(*) from events where store_id = '$store'")
[[ $events -gt 0 ]] || fail "no events"
all_delivered() { [[ $(undelivered) == 0 ]]; }
wait_for all_delivered \
  || fail "the dispatcher left $(undelivered) of $events events undelivered"
# ... as the receiver counts them by webhook-id (every delivery is recorded as succeeded,
# so none is sent again and the receiver's lines are final): each event received, none
# that is not one, and once — but for the deliveries the failover made repeat. Delivery
# is at least once (docs/DECISIONS.md "Delivery"): a claim or an outcome the old leader
# lost is done again on the new one. So a repeat must have come first on the old leader's
# claim, before the promotion, and at most twice.
sql "select 'evt_' || replace(id::text, '-', '') from events where store_id = '$store'" | sort >"$work/event_ids"
cut -d' ' -f1 "$work/received" | sort -u >"$work/received_ids"
[[ -z $(comm -3 "$work/event_ids" "$work/received_ids" | sed -n 1,5p) ]] \
  || fail "received webhook-ids differ from the events: $(comm -3 "$work/event_ids" "$work/received_ids" | sed -n 1,5p)"
repeated=$(awk -v promoted="$promoted_at" '
  { n[$1]++; if (!($1 in first) || $2 < first[$1]) first[$1] = $2 }
  END { for (id in n) if (n[id] > 1) print id, n[id], first[id] - promoted }' "$work/received")
while read -r id times after_promotion; do
  [[ -n $id ]] || continue
  (( times == 2 )) || fail "$id received $times times"
  (( after_promotion <= 0 )) || fail "$id repeated, though first received $after_promotion ms after the promotion"
done <<<"$repeated"
redelivered=$(grep -c . <<<"$repeated" || true)

echo "patroni failover: ttl 10 s, loop_wait 1 s, retry_timeout 4 s, primary_start_timeout 0, synchronous_mode_strict;" \
     "standby promoted $((promoted_at - killed_at)) ms after the kill (seen on its /primary), the old leader" \
     "synchronous again after $((rejoined_at - killed_at)) ms;" \
     "first acknowledged write after the kill: node a (multi-host URL) $rec_a ms, node b (HAProxy) $rec_b ms;" \
     "$(wc -l <"$work/attempts") attempts, $(wc -l <"$work/acknowledged") acknowledged," \
     "$(awk '$2 == 503' "$work/attempts" | wc -l) answered 503, $(awk '$2 == 409' "$work/attempts" | wc -l) answered 409, $(awk '$2 == "000"' "$work/attempts" | wc -l) without an answer;" \
     "key by key: 0 missing, 0 doubled, $applied_unacknowledged applied but unacknowledged;" \
     "$crossed in flight between the kill and the promotion acknowledged;" \
     "$events events received by webhook-id, $redelivered of them twice (delivered before the promotion, again after it)"
