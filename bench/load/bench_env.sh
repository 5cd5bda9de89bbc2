# Shared by the read benchmarks (sourced): a dedicated PostgreSQL cluster under
# .dev/bench, seeded stores reused from run to run, read keys, and a storeapi server
# (SERVER_CPUS: the CPUs it may use, taskset -c; its cores pin themselves within them).
# Nothing here is part of tools/test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export STOREAPI_DEV_DIR=$root/.dev/bench
admin=$root/build/storeapi-admin

bench_setup() {
  tools/deps
  [[ -f build/build.ninja ]] || meson setup build --buildtype=release -Dwerror=true >/dev/null
  ninja -C build -j 2 storeapi storeapi-admin bench/print-statements >/dev/null
  tools/dev-db start
  export STOREAPI_DATABASE_URL=$(tools/dev-db url)
  "$admin" migrate >/dev/null
}

psql_bench() { psql "$STOREAPI_DATABASE_URL" -X -q -At "$@"; }

# ensure_store SLUG ORDERS: prints the store id, creating and seeding it on first use.
ensure_store() {
  local slug=$1 orders=$2 id
  id=$(psql_bench -c "select id from stores where slug = '$slug'")
  if [[ -z $id ]]; then
    id=$("$admin" store create --name "$slug" --slug "$slug" --currency EUR --plan advanced \
           --owner-email "owner@$slug.example" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    echo "seeding $slug with $orders orders..." >&2
    "$admin" seed --store "$id" --orders "$orders" --products 2000 --customers 20000 --bookings 2000 >/dev/null
    "$admin" store set-rate-limit --store "$id" --rpm 1000000000 >/dev/null
    psql_bench -c "vacuum analyze" >/dev/null
  fi
  echo "$id"
}

# store_key STORE_ID: a read key for the store, created once and kept under .dev/bench.
store_key() {
  local file=$STOREAPI_DEV_DIR/keys/$1
  if [[ ! -s $file ]]; then
    mkdir -p "$(dirname "$file")"
    "$admin" key create --store "$1" --name bench --access read |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])' >"$file"
  fi
  cat "$file"
}

# start_server: storeapi on a free port with $THREADS threads (default 2) and $DB_CONNS
# database connections per thread (default 1: measured best on 2 cores, bench/RESULTS.md),
# access log $ACCESS_LOG (default off, written to .dev/bench/access-PORT.log), metrics
# on $METRICS_LISTEN (default off) and stage timing as $STAGE_TIMING says (default off);
# sets $base and $server_pid.
# STOREAPI_BINARY runs another build (another commit's, for a before/after).
start_server() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  STOREAPI_LISTEN=127.0.0.1:$port STOREAPI_THREADS=${THREADS:-2} STOREAPI_DB_CONNS_PER_THREAD=${DB_CONNS:-1} \
    STOREAPI_ACCESS_LOG=${ACCESS_LOG:-off} STOREAPI_METRICS_LISTEN=${METRICS_LISTEN:-off} \
    STOREAPI_STAGE_TIMING=${STAGE_TIMING:-off} \
    STOREAPI_SECRET=bench-secret-at-least-32-bytes-long ${SERVER_CPUS:+taskset -c "$SERVER_CPUS"} "${STOREAPI_BINARY:-build/storeapi}" \
    >"$STOREAPI_DEV_DIR/access-$port.log" 2>"$STOREAPI_DEV_DIR/server.log" &
  server_pid=$!
  base=http://127.0.0.1:$port
  for _ in $(seq 1 100); do
    curl -fs "$base/readyz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "storeapi did not start; see $STOREAPI_DEV_DIR/server.log" >&2
  exit 1
}

# pgbench_script NAME FILE VALUE...: the server's prepared statement NAME (from
# build/bench/print-statements) as a pgbench script in FILE, with $1.. bound to the
# values (NULL for SQL null, written into the text); sets pgbench_defines to the -D
# options that go with it.
pgbench_script() {
  local name=$1 file=$2 sql i=1
  shift 2
  pgbench_defines=()
  sql=$(build/bench/print-statements | sed -n "s/^prepare $name as \(.*\);$/\1/p")
  [[ -n $sql ]] || { echo "no statement $name" >&2; exit 1; }
  for value in "$@"; do
    if [[ $value == NULL ]]; then
      sql=$(sed -E "s/\\\$$i([^0-9]|$)/NULL\1/g" <<<"$sql")
    else
      sql=$(sed -E "s/\\\$$i([^0-9]|$)/:p$i\1/g" <<<"$sql")
      pgbench_defines+=(-D "p$i=$value")
    fi
    i=$((i + 1))
  done
  echo "$sql;" >"$file"
}

stop_server() { [[ -z ${server_pid:-} ]] || { kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; } || true; }
