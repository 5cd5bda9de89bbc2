#!/usr/bin/env bash
# The README's examples, run as a new user would run them, from the blocks marked
# `<!-- example: NAME` (so an edit to the README is what gets tested):
#   quickstart  `tools/run` against a database cluster of its own (a first run: created,
#               migrated, seeded), then the curl line it prints answers the store; its
#               server and dispatcher sign in as the runtime role `storeapi`, not as the
#               superuser (they used to: a grant the role lacks went unseen); a
#               second `tools/run` on the same address says so and stops, and the first
#               one's key still works (it used to be revoked, and the port shared);
#   tour        the API tour, twice (it must be re-runnable), with only BASE and KEY set
#               to what tools/run printed (the ids come from the tour's own commands):
#               every request answers 2xx with a JSON body, every list is non-empty, the
#               second page of the cursor example is reached and goes on from the first;
#               each step's answer holds what the step says of the demo data (the
#               filters, the records it names by SKU and e-mail, what the writes did);
#   nodes       "Running several nodes": two nodes on one host with the documented
#               settings (each its own metrics port; a second node used to fail on
#               9464), both serving and scraped. Stand-ins, as a shared machine needs:
#               `...` is the demo database's URL, every 127.0.0.1:PORT a free port (the
#               Redis one served by a redis-server of this test), build/ the build under
#               test. The block holds nothing optional (standbys are outside it: their
#               addresses would stop a paste). Each node's request moves the store's one
#               rate-limit bucket in Redis (they share the limit).
#   dispatcher  "Trying the dispatcher locally", once the first tools/run has stopped:
#               the mail sink and a tools/run pointed at it (on the quick start's address,
#               the sink on a free port), which serves again (the PostgreSQL the first run
#               started used to keep its lock, so every later run said "in use" and
#               stopped) and whose key e-mail reaches the sink.
#   tests/docs_examples_pgtest.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
chmod 755 "$work"  # tools/dev-db runs PostgreSQL as the postgres user when root
export STOREAPI_DEV_DIR=$work/dev STOREAPI_BUILD_DIR=$build
unset STOREAPI_DATABASE_URL STOREAPI_LISTEN STOREAPI_METRICS_LISTEN
# tools/run, the nodes and Redis each run in a process group of their own (setsid), so
# that what they start (the server and dispatcher, the nodes) is stopped with them.
groups=()
cleanup() {
  set +e
  for group in "${groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null; done
  for group in "${groups[@]}"; do
    for _ in $(seq 100); do kill -0 -- "-$group" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$group" 2>/dev/null
  done
  "$source_root/tools/dev-db" stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "docs examples test: $*" >&2
  for f in "$work"/*.err; do [[ -f $f ]] && { echo "--- $f"; tail -15 "$f"; } >&2; done
  exit 1
}
source "$source_root/tests/support/wait_for.sh"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# The fenced block after the README line `<!-- example: NAME`.
example() {
  awk -v name="$1" '$0 ~ "^<!-- example: " name "[ >]" { on = 1; next } on && /^```/ && !inside { inside = 1; next }
                    inside && /^```/ { exit } inside { print }' "$source_root/README.md"
}

# --- quickstart
quickstart=$(example quickstart)
grep -qx 'tools/run .*' <<<"$quickstart" || fail "the quick start block has no tools/run line"
port=$(free_port)
cd "$source_root"
STOREAPI_LISTEN=127.0.0.1:$port setsid tools/run >"$work/run.out" 2>"$work/run.err" &
groups+=($!)
wait_for grep -q "listening on 127.0.0.1:$port" "$work/run.err" || fail "tools/run did not start a server on $port"
key=$(sed -n 's/^  api key   \(sk_live_[A-Za-z0-9]*\)$/\1/p' "$work/run.out")
[[ -n $key ]] || fail "tools/run printed no key: $(cat "$work/run.out")"
curl_line=$(sed -n 's/^  \(curl .*\)$/\1/p' "$work/run.out")
answer=$(eval "$curl_line -sS --max-time 10")
grep -q '"object":"store"' <<<"$answer" || fail "tools/run's curl line: $answer"
# Who the server's and the dispatcher's sessions are (the dispatcher may still connect).
sessions() {
  "$source_root/tools/dev-db" psql -Atc "select string_agg(distinct s, ', ' order by s)
    from (select usename || ' ' || application_name as s from pg_stat_activity
           where application_name in ('storeapi', 'storeapi-dispatch')) sessions"
}
both_as_runtime_role() { [[ $(sessions) == "storeapi storeapi, storeapi storeapi-dispatch" ]]; }
wait_for both_as_runtime_role || fail "tools/run's server and dispatcher are not signed in as storeapi only: $(sessions)"
if STOREAPI_LISTEN=127.0.0.1:$port tools/run >"$work/second.out" 2>"$work/second.err"; then
  fail "a second tools/run on the same address did not stop"
fi
grep -q "127.0.0.1:$port is in use (another tools/run?)" "$work/second.err" ||
  fail "the second tools/run did not say why it stopped: $(cat "$work/second.err")"
answer=$(eval "$curl_line -sS --max-time 10")
grep -q '"object":"store"' <<<"$answer" || fail "the first tools/run's key stopped working: $answer"
echo "docs examples test: quick start: tools/run serves, its curl line answers, a second one stops"

# --- tour
tour=$(example tour)
grep -q '^BASE=http://127.0.0.1:8080 KEY=sk_live_\.\.\.' <<<"$tour" || fail "the tour does not start with BASE=... KEY=..."
tour=$(sed "1s|^BASE=http://127.0.0.1:8080 KEY=sk_live_\.\.\.|BASE=http://127.0.0.1:$port KEY=$key|" <<<"$tour")
records=$work/records
mkdir -p "$records"
# Every curl of the tour leaves its arguments, status and body in $records.
# No pipefail: a reader's shell has none, and the tour pipes into head.
cat >"$work/tour.sh" <<EOF
set -eu
curl() {
  local record=$records/\$(date +%s%N)
  printf '%s\n' "\$*" >"\$record.args"
  command curl "\$@" --max-time 10 -o "\$record.body" -w '%{http_code}' >"\$record.status"
  cat "\$record.body"
}
$tour
EOF
for run in 1 2; do
  rm -f "$records"/*
  bash "$work/tour.sh" >"$work/tour.out" 2>"$work/tour.err" || fail "tour run $run failed: $(tail -3 "$work/tour.err")"
  python3 - "$records" "$run" <<'PY' || fail "tour run $run: an answer is not what the tour promises"
import datetime, json, pathlib, sys
records, run = pathlib.Path(sys.argv[1]), sys.argv[2]
problems, pages = [], 0
for status_file in sorted(records.glob("*.status")):
    args = status_file.with_suffix(".args").read_text().strip()
    status = status_file.read_text().strip()
    body = status_file.with_suffix(".body").read_text()
    if not status.startswith("2"):
        problems.append(f"{status} for curl {args}: {body[:300]}")
        continue
    try:
        doc = json.loads(body)
    except ValueError:
        problems.append(f"not JSON for curl {args}: {body[:200]}")
        continue
    if not doc:
        problems.append(f"empty answer for curl {args}")
    if doc.get("object") == "list":
        if not doc.get("data"):
            problems.append(f"an empty list for curl {args}")
        if "cursor=" in args:
            pages += 1
# What the tour's steps say of the demo data, each held to its answer: the filters filter,
# the records it names are the ones found, the writes did what they say, and the cursor's
# page goes on from the first page (later in the order, none of its records again).
answers = []
for status_file in sorted(records.glob("*.status")):
    body = status_file.with_suffix(".body").read_text()
    try:
        answers.append((status_file.with_suffix(".args").read_text().strip(), json.loads(body)))
    except ValueError:
        pass
def step(part, *more):
    return [doc for args, doc in answers if part in args and all(m in args for m in more) and isinstance(doc, dict)]
def when(text):  # RFC 3339 as the API writes it: the fraction's digits vary, so no string order
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
def expect(what, ok):
    if not ok:
        problems.append(what)
for doc in step("/v1/store"):
    expect("/v1/store is not the key's store", doc.get("object") == "store" or "data" in doc)
for doc in step("/v1/orders?", "fulfillment_status=pending"):
    expect("an order listed as pending is not", all(o["fulfillment_status"] == "pending" for o in doc["data"]))
sync = step("updated_after=2026-10-25T00:00:00Z&order=asc")
first_pages = [d for a, d in answers if "updated_after=2026-10-25" in a and "cursor=" not in a and isinstance(d, dict)]
for doc in sync:
    # Changed after the time, listed in creation order (the list's order, docs/spec).
    expect("the sync step lists an order changed before its updated_after",
           all(when(o["updated_at"]) > when("2026-10-25T00:00:00Z") for o in doc["data"]))
    created = [when(o["created_at"]) for o in doc["data"]]
    expect("the sync step's page is not oldest first", created == sorted(created))
for doc in step("cursor=", "updated_after=2026-10-25T00:00:00Z"):
    if first_pages:
        first = first_pages[-1]["data"]
        expect("the cursor's page repeats a record of the first page",
               not {o["id"] for o in doc["data"]} & {o["id"] for o in first})
        expect("the cursor's page does not go on after the first page",
               when(doc["data"][0]["created_at"]) >= when(first[-1]["created_at"]))
for doc in step("/fulfillment"):
    expect("the shipped order is not shipped", doc.get("fulfillment_status") == "shipped")
for doc in step("/v1/bookings?", "status=pending"):
    expect("a booking listed as pending is not", all(b["status"] == "pending" for b in doc["data"]))
for doc in step("/cancel"):
    expect("the canceled booking is not canceled", doc.get("status") == "canceled")
for doc in step("/v1/products?sku=PHY-24-2"):
    expect("the product found by SKU PHY-24-2 has no such variant",
           any(v["sku"] == "PHY-24-2" for v in doc["data"][0]["variants"]))
for args, doc in answers:
    if "-X PATCH" in args and "/variants/" in args:
        expect("the patched variant's price is not 129.00", "129.00" in json.dumps(doc))
for doc in step("/v1/customers?email=olivia.meyer19@example.org"):
    expect("the customer found by e-mail is another", doc["data"][0]["email"] == "olivia.meyer19@example.org")
if pages == 0:
    problems.append("no request followed a next_cursor")
for p in problems:
    print(f"tour run {run}: {p}", file=sys.stderr)
print(f"docs examples test: tour run {run}: {len(list(records.glob('*.status')))} requests, every answer as promised")
sys.exit(1 if problems else 0)
PY
done

# --- nodes
nodes=$(example nodes)
grep -q 'build/storeapi &$' <<<"$nodes" || fail "the nodes example starts no build/storeapi"
grep -q 'optional' <<<"$nodes" && fail "the nodes example holds an optional line again"
for address in $(grep -o '127\.0\.0\.1:[0-9]*' <<<"$nodes" | sort -u); do
  free=$(free_port)
  [[ $nodes == *"redis://$address"* ]] && redis_port=$free
  nodes=${nodes//$address/127.0.0.1:$free}
done
# The nodes connect as the runtime role (docs/DEPLOY.md "Database roles"; tools/dev-db
# made it, tools/run's migrate granted it its rights): a grant it lacks fails the example.
database_url=$("$source_root/tools/dev-db" url storeapi)
nodes=$(sed -e "s|STOREAPI_DATABASE_URL=\.\.\.|STOREAPI_DATABASE_URL=$database_url|" -e "s|build/storeapi|$build/storeapi|" <<<"$nodes")
[[ -n ${redis_port:-} ]] || fail "the nodes example sets no Redis"
setsid redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
groups+=($!)
wait_for redis-cli -p "$redis_port" ping >/dev/null 2>&1 || fail "redis-server did not start"
printf '%s\nwait\n' "$nodes" >"$work/nodes.sh"
setsid bash "$work/nodes.sh" >"$work/nodes.out" 2>"$work/nodes.err" &
groups+=($!)
both_listening() { [[ $(grep -c 'listening on' "$work/nodes.err") -eq 2 ]]; }
wait_for both_listening ||
  fail "the two nodes did not both start: $(grep -v '^{' "$work/nodes.err" | tail -5)"
for node_port in $(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/nodes.err"); do
  answer=$(curl -sS --max-time 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$node_port/v1/store")
  grep -q '"object":"store"' <<<"$answer" || fail "node on $node_port: $answer"
done
for metrics_port in $(sed -n 's/.*metrics on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/nodes.err"); do
  scrape=$(curl -sS --max-time 10 "http://127.0.0.1:$metrics_port/metrics")
  grep -q '^storeapi_build_info' <<<"$scrape" || fail "no metrics on $metrics_port: $(head -c 300 <<<"$scrape")"
done
[[ $(grep -c 'metrics on' "$work/nodes.err") -eq 2 ]] || fail "the two nodes do not both serve /metrics"
[[ $(pgrep -g "${groups[-1]}" -x storeapi | wc -l) -eq 2 ]] || fail "the nodes example did not start two servers"
# One rate limit for the store across the nodes, as the example says: the store's one
# bucket in Redis changes with a request to either node (a node limiting on its own would
# leave it as the other node wrote it).
store_id=$(curl -sS --max-time 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$node_port/v1/store" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
bucket() { redis-cli -p "$redis_port" --no-raw dump "storeapi:{$store_id}:rate"; }
for node_port in $(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/nodes.err"); do
  before=$(bucket)
  [[ $(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$node_port/v1/store") == 200 ]] ||
    fail "node on $node_port did not answer the store"
  after=$(bucket)
  [[ $after != "(nil)" && $after != "$before" ]] || fail "a request to the node on $node_port left the store's shared rate-limit bucket as it was ($after)"
done
echo "docs examples test: two nodes on one host with the documented settings serve the API and their metrics, and share the store's rate limit"

# --- dispatcher
dispatcher=$(example dispatcher)
grep -q 'aiosmtpd' <<<"$dispatcher" && grep -q 'tools/run' <<<"$dispatcher" || fail "the dispatcher example lacks its sink or tools/run"
kill -TERM -- "-${groups[0]}"
# As tools/run checks it: bound with SO_REUSEADDR, so the tour's closed connections do not count.
port_free() {
  python3 -c 'import socket, sys; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null
}
wait_for port_free || fail "the first tools/run did not stop"
smtp=$(free_port)
dispatcher=${dispatcher//127.0.0.1:8025/127.0.0.1:$smtp}
sink_line=$(grep aiosmtpd <<<"$dispatcher")
run_line=$(grep 'tools/run' <<<"$dispatcher")
PYTHONUNBUFFERED=1 setsid bash -c "$sink_line" >"$work/sink.out" 2>"$work/sink.err" &
groups+=($!)
wait_for python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$smtp" 2>/dev/null ||
  fail "the mail sink did not start"
STOREAPI_LISTEN=127.0.0.1:$port setsid bash -c "$run_line" >"$work/rerun.out" 2>"$work/rerun.err" &
groups+=($!)
wait_for grep -q "listening on 127.0.0.1:$port" "$work/rerun.err" ||
  fail "tools/run run again did not serve: $(tail -3 "$work/rerun.err")"
wait_for grep -q 'owner@demo.example' "$work/sink.out" || fail "the sink got no mail from tools/run's dispatcher"
echo "docs examples test: tools/run runs again after the first one stopped, its dispatcher mails the sink"
