# An etcd member and two Patroni nodes running dist/patroni/patroni.yml (only the timings
# shortened, so a test stays bounded), for the tests that run Patroni as docs/DEPLOY.md sets
# it up. Sourced by such a test (bash, set -euo pipefail) after it set:
#   source_root  the checkout
#   test_name    how its failures begin ("patroni failover test: ...")
# It makes `work` (a temporary directory, owned by postgres when run as root, removed by
# patroni_pair_cleanup) and offers:
#   start_etcd                  one etcd member on free loopback ports ($etcd_client)
#   write_patroni_config        $work/patroni.yml: the shipped file, the timings shortened
#   start_patroni N [VAR=V...]  node N (pg_port[N], rest_port[N], data in $work/pgN), with
#                               more environment; the first node's waits for its leadership
#   stop_patroni N              Patroni on node N stopped (it stops its PostgreSQL)
#   roles / synchronous         the members' roles; "leader sync_standby" reached
#   create_storeapi_database    database storeapi on the leader, migrated, with a seeded
#                               store ($store, its full key $key, a tracked $variant of
#                               $product); $url (the multi-host URL, read-write), sql, admin
#   start_node NAME URL         a storeapi node on URL (node_port[NAME]), once ready
#   patroni_pair_cleanup        for the test's EXIT trap (also stops the nodes and whatever
#                               the test added to node_pids)
# and wait_for, free_port, now_ms, fail, json_field, as_pg, bin; `build` for admin.
if ! command -v patroni >/dev/null || ! command -v etcd >/dev/null; then
  echo "SKIP: patroni or etcd is not installed (tools/deps installs patroni and etcd-server)"
  exit 77
fi
bin=/usr/lib/postgresql/15/bin
# PostgreSQL refuses to run as root: Patroni and its clusters run as `postgres` then.
as_pg=()
[[ $(id -u) -eq 0 ]] && as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)

work=$(mktemp -d /tmp/storeapi-patroni-XXXXXX)
[[ $(id -u) -eq 0 ]] && chown postgres: "$work"
etcd_pid="" etcd_client="" superuser_password=$(openssl rand -hex 16)
declare -A pg_port rest_port patroni_pid node_port
node_pids=()

patroni_pair_cleanup() {
  for pid in "${node_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # Patroni stops its PostgreSQL on SIGTERM; whatever is left is stopped at once.
  for n in "${!patroni_pid[@]}"; do kill "${patroni_pid[$n]}" 2>/dev/null || true; done
  for n in "${!patroni_pid[@]}"; do
    timeout 20 tail --pid="${patroni_pid[$n]}" -f /dev/null 2>/dev/null || kill -9 "${patroni_pid[$n]}" 2>/dev/null || true
  done
  for dir in "$work"/pg*/; do
    [[ -f $dir/postmaster.pid ]] && "${as_pg[@]}" "$bin/pg_ctl" -D "$dir" -m immediate stop >/dev/null 2>&1 || true
  done
  [[ -n $etcd_pid ]] && kill "$etcd_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
fail() {
  echo "$test_name: $*" >&2
  for f in "$work"/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -15 "$f"; } >&2; done
  exit 1
}
source "$source_root/tests/support/wait_for.sh"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }

start_etcd() {
  etcd_client=$(free_port)
  local peer
  peer=$(free_port)
  etcd --name e1 --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$etcd_client" \
    --advertise-client-urls "http://127.0.0.1:$etcd_client" --listen-peer-urls "http://127.0.0.1:$peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer" --initial-cluster "e1=http://127.0.0.1:$peer" \
    >"$work/etcd.log" 2>&1 &
  etcd_pid=$!
  wait_for curl -sf "http://127.0.0.1:$etcd_client/health" || fail "etcd did not start"
}

# ttl 10 s, loop_wait 1 s, retry_timeout 4 s (loop_wait + 2 × retry_timeout <= ttl).
write_patroni_config() {
  config=$work/patroni.yml
  sed -e 's/^    ttl: 30$/    ttl: 10/' -e 's/^    loop_wait: 10$/    loop_wait: 1/' \
      -e 's/^    retry_timeout: 10$/    retry_timeout: 4/' \
      -e "s|^    password_encryption: scram-sha-256\$|&\n    unix_socket_directories: '$work'\n    fsync: 'off'\n    shared_buffers: 32MB\n    max_connections: 100|" \
      "$source_root/dist/patroni/patroni.yml" >"$config"
  for setting in 'ttl: 10' 'loop_wait: 1' 'retry_timeout: 4' 'synchronous_mode: true' 'primary_start_timeout: 0' \
                 "unix_socket_directories: '$work'"; do
    grep -q "^ *$setting\$" "$config" || fail "dist/patroni/patroni.yml changed: cannot set $setting"
  done
  chmod 644 "$config"
}

# Node N's environment, as the header of dist/patroni/patroni.yml lists it.
patroni_environment() {
  local n=$1
  echo PATRONI_NAME="pg$n" PATRONI_ETCD3_HOSTS="'127.0.0.1:$etcd_client'" \
    PATRONI_RESTAPI_LISTEN="127.0.0.1:${rest_port[$n]}" PATRONI_RESTAPI_CONNECT_ADDRESS="127.0.0.1:${rest_port[$n]}" \
    PATRONI_POSTGRESQL_LISTEN="127.0.0.1:${pg_port[$n]}" PATRONI_POSTGRESQL_CONNECT_ADDRESS="127.0.0.1:${pg_port[$n]}" \
    PATRONI_POSTGRESQL_DATA_DIR="$work/pg$n" PATRONI_POSTGRESQL_PGPASS="$work/pgpass$n" \
    PATRONI_SUPERUSER_USERNAME=postgres PATRONI_SUPERUSER_PASSWORD="$superuser_password" \
    PATRONI_REPLICATION_USERNAME=replicator PATRONI_REPLICATION_PASSWORD="$superuser_password"
}

start_patroni() {
  local n=$1
  shift
  [[ -n ${pg_port[$n]:-} ]] || { pg_port[$n]=$(free_port); rest_port[$n]=$(free_port); }
  # shellcheck disable=SC2046  # the environment's words, none with a space
  env $(patroni_environment "$n") "$@" "${as_pg[@]}" patroni "$config" >>"$work/patroni$n.log" 2>&1 &
  patroni_pid[$n]=$!
  # The first node bootstraps the cluster before the second joins it.
  if [[ $n == 1 ]]; then wait_for curl -sf "http://127.0.0.1:${rest_port[1]}/primary" || fail "no leader"; fi
}

stop_patroni() {
  kill "${patroni_pid[$1]}"
  timeout 60 tail --pid="${patroni_pid[$1]}" -f /dev/null || fail "Patroni on node $1 did not stop"
  unset "patroni_pid[$1]"
}

# The members' roles, as Patroni reports them ("leader sync_standby" once replication is synchronous).
roles() { curl -sf "http://127.0.0.1:${rest_port[1]}/cluster" | python3 -c 'import json, sys; print(" ".join(sorted(m["role"] for m in json.load(sys.stdin)["members"])))'; }
synchronous() { [[ $(roles) == "leader sync_standby" ]]; }

sql() { psql -qAt "postgresql://postgres@$hosts/storeapi?target_session_attrs=read-write" -c "$1"; }
admin() { STOREAPI_DATABASE_URL=$url "$build/storeapi-admin" "$@"; }
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
create_storeapi_database() {
  hosts="127.0.0.1:${pg_port[1]},127.0.0.1:${pg_port[2]}"
  export PGPASSWORD=$superuser_password
  url="postgresql://postgres:$superuser_password@$hosts/storeapi?target_session_attrs=read-write"
  psql -qAt "postgresql://postgres@$hosts/postgres?target_session_attrs=read-write" -c "create database storeapi" >/dev/null \
    || fail "create database"
  admin migrate >/dev/null || fail "migrate"
  store=$(admin store create --name HA --slug ha-test --currency EUR --plan advanced --owner-email owner@ha.example | json_field id)
  admin store set-rate-limit --store "$store" --rpm 1000000 >/dev/null
  admin seed --store "$store" --orders 1 --products 2 --customers 1 --bookings 0 >/dev/null
  key=$(admin key create --store "$store" --name writers --access full | json_field key)
  read -r product variant < <(sql "select v.product_id, v.id from variants v join products p on p.id = v.product_id
    where v.store_id = '$store' and v.deleted_at is null and p.deleted_at is null order by v.created_at, v.id limit 1" | tr '|' ' ')
  sql "update variants set stock = 1000 where id = '$variant'" >/dev/null
}

start_node() {  # NAME DATABASE_URL
  node_port[$1]=$(free_port)
  STOREAPI_DATABASE_URL=$2 STOREAPI_LISTEN=127.0.0.1:${node_port[$1]} STOREAPI_METRICS_LISTEN=off \
    STOREAPI_THREADS=2 STOREAPI_ACCESS_LOG=off "$build/storeapi" >"$work/node-$1.log" 2>&1 &
  node_pids+=($!)
  wait_for curl -sf "http://127.0.0.1:${node_port[$1]}/readyz" || fail "node $1 did not become ready"
}
