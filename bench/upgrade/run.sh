#!/usr/bin/env bash
# The rolling upgrade's `migrate` over a big store (bench/RESULTS.md, "Upgrade"): a
# PostgreSQL 15 cluster of its own under a temporary directory; the previous release
# (tools/build-release, by commit) migrates it, creates a store and seeds ORDERS orders;
# one node of that release serves it under a probe (a read and a keyed write every 20 ms,
# each timed); then this release's `storeapi-admin migrate` runs. Prints what migrate
# applied with the time each step started (schema_migrations / schema_functions
# applied_at), how long it took, and the longest probe request while it ran.
# Not part of tools/test (a million orders take minutes to seed).
#   bench/upgrade/run.sh [ORDERS [PREVIOUS_COMMIT]]   (defaults: 1000000, 0.1.0's commit)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
orders=${1:-1000000}
previous_commit=${2:-7eb8bbf50f18510eec8dc2dc3f1a7ea78faf44b5}
source "$root/bench/cluster.sh"
ninja -C "$root/build" -j 2 storeapi-admin >/dev/null
previous=$("$root/tools/build-release" "$previous_commit")

bench_work upgrade-bench
node_pid="" probe_pid=""
cleanup() {
  [[ -n $probe_pid ]] && kill "$probe_pid" 2>/dev/null || true
  [[ -n $node_pid ]] && kill "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null || true
  cluster_stop "$work/pg"
  rm -rf "$work"
}
trap cleanup EXIT
pg_port=$(free_port)
cluster_start "$work/pg" "$pg_port" "shared_buffers = 256MB"
export STOREAPI_DATABASE_URL="postgresql://$user@127.0.0.1:$pg_port/postgres"
sql() { psql -X -A -t -q "$STOREAPI_DATABASE_URL" -c "$1"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

"$previous/storeapi-admin" migrate >/dev/null
store=$("$previous/storeapi-admin" store create --name Big --slug big --currency EUR --plan advanced \
          --owner-email owner@big.example | json id)
seed_start=$(date +%s)
"$previous/storeapi-admin" seed --store "$store" --orders "$orders" >/dev/null
echo "seeded $orders orders in $(( $(date +%s) - seed_start )) s; database $(sql "select pg_size_pretty(pg_database_size(current_database()))")"
key=$("$previous/storeapi-admin" key create --store "$store" --name bench --access full | json key)
sql "update stores set rate_limit_rpm = 1000000 where id = '$store'"
variant=$(sql "select product_id || '/variants/' || id from variants where store_id = '$store' and deleted_at is null
               and stock is not null order by created_at, id limit 1")

api_port=$(free_port)
STOREAPI_LISTEN=127.0.0.1:$api_port STOREAPI_SECRET=upgrade-bench-secret-of-at-least-32-bytes STOREAPI_ACCESS_LOG=off \
  STOREAPI_THREADS=2 "$previous/storeapi" 2>"$work/node.err" &
node_pid=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$api_port/readyz" >/dev/null && break; sleep 0.1; done

# The probe: one read and one keyed write every 20 ms; each line "start_s duration_s status".
python3 - "$api_port" "$key" "$variant" > "$work/probe.txt" <<'PY' &
import http.client, sys, time, itertools
port, key, variant = sys.argv[1], sys.argv[2], sys.argv[3]
auth = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
for n in itertools.count():
    for method, path, body in (("GET", "/v1/orders?limit=1", None),
                               ("POST", "/v1/products/" + variant + "/stock", '{"mode":"adjust","quantity":1}')):
        headers = dict(auth, **({"Idempotency-Key": "probe-%d" % n} if body else {}))
        start = time.time()
        try:
            c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
            c.request(method, path, body, headers)
            status = c.getresponse().status
            c.close()
        except Exception:
            status = 0
        print("%.3f %.3f %d" % (start, time.time() - start, status), flush=True)
    time.sleep(0.02)
PY
probe_pid=$!
sleep 2

migrate_start=$(date +%s.%N)
"$root/build/storeapi-admin" migrate > "$work/migrate.json"
migrate_end=$(date +%s.%N)
sleep 1
kill "$probe_pid"; probe_pid=""

echo "migrate of $(sed -n 's/^project.*//;s/^ *version: .\([0-9.]*\).*/\1/p' "$root/meson.build" | head -1) over the store of $orders orders:"
cat "$work/migrate.json"
sql "select name, applied_at from schema_migrations where applied_at >= to_timestamp($migrate_start)
     union all select 'functions/' || name, applied_at from schema_functions where applied_at >= to_timestamp($migrate_start)
     order by 2"
python3 - "$work/probe.txt" "$migrate_start" "$migrate_end" <<'PY'
import sys
start, end = float(sys.argv[2]), float(sys.argv[3])
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
during = [r for r in rows if r[0] <= end and r[0] + r[1] >= start]
print("migrate took %.2f s; probe requests %d (%d during migrate), failed %d, longest during migrate %.0f ms, longest overall %.0f ms"
      % (end - start, len(rows), len(during), sum(1 for r in rows if r[2] == 0 or r[2] >= 500),
         1000 * max((r[1] for r in during), default=0), 1000 * max((r[1] for r in rows), default=0)))
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
