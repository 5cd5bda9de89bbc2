# A Patroni cluster of a test's own, as docs/DEPLOY.md "High availability" sets one up:
# etcd (one member), two Patroni nodes running dist/patroni/patroni.yml (only the timings
# shortened, so a test stays bounded), a leader and its synchronous standby, on loopback;
# HAProxy running dist/patroni/haproxy.cfg in front of them when asked. Sourced by the
# Patroni tests (tests/ha/patroni_*_pgtest.sh), which set `test_name` first:
#   patroni_require                  exit 77 when patroni, etcd or haproxy is missing
#   patroni_workdir                  $work: a temporary directory the cluster's user may write
#   patroni_start                    etcd and both nodes, returns once replication is
#                                    synchronous; sets pg_port[1|2], rest_port[1|2],
#                                    superuser_password, hosts (the multi-host list)
#   patroni_haproxy                  HAProxy on $haproxy_port
#   patroni_stop                     stops all of it (the test's cleanup calls it)
#   roles / synchronous / leader     the members' roles; whether they are "leader
#                                    sync_standby"; the leader's number (1 or 2)
#   fail MESSAGE / wait_for COMMAND… / free_port / now_ms
# The shipped file must keep synchronous_mode: true and primary_start_timeout: 0 (checked
# by patroni_start): without the first a promoted standby may lack acknowledged writes,
# without the second Patroni restarts a crashed primary in place for up to 300 s.

bin=/usr/lib/postgresql/15/bin
# PostgreSQL refuses to run as root: Patroni and its clusters run as `postgres` then.
as_pg=()
[[ $(id -u) -eq 0 ]] && as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)
etcd_pid="" haproxy_pid="" patroni_pids=()

patroni_require() {
  for program in patroni etcd haproxy; do
    if ! command -v "$program" >/dev/null; then
      echo "SKIP: $program is not installed (tools/deps installs patroni, etcd-server and haproxy)"
      exit 77
    fi
  done
}

patroni_workdir() {
  work=$(mktemp -d /tmp/storeapi-patroni-XXXXXX)
  [[ $(id -u) -eq 0 ]] && chown postgres: "$work"
  return 0
}

fail() {
  echo "$test_name: $*" >&2
  for f in "$work"/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -15 "$f"; } >&2; done
  exit 1
}
# Waits (up to $WAIT_SECONDS s, default 60) until the command succeeds.
wait_for() {
  local tries=$(( ${WAIT_SECONDS:-60} * 10 ))
  for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }

patroni_start() {
  etcd_client=$(free_port) etcd_peer=$(free_port)
  etcd --name e1 --data-dir "$work/etcd" --listen-client-urls "http://127.0.0.1:$etcd_client" \
    --advertise-client-urls "http://127.0.0.1:$etcd_client" --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" --initial-cluster "e1=http://127.0.0.1:$etcd_peer" \
    >"$work/etcd.log" 2>&1 &
  etcd_pid=$!
  wait_for curl -sf "http://127.0.0.1:$etcd_client/health" || fail "etcd did not start"

  # The shipped configuration, the timings shortened: ttl 10 s, loop_wait 1 s,
  # retry_timeout 4 s (loop_wait + 2 × retry_timeout <= ttl).
  local config=$work/patroni.yml
  sed -e 's/^    ttl: 30$/    ttl: 10/' -e 's/^    loop_wait: 10$/    loop_wait: 1/' \
      -e 's/^    retry_timeout: 10$/    retry_timeout: 4/' \
      -e "s|^    password_encryption: scram-sha-256\$|&\n    unix_socket_directories: '$work'\n    fsync: 'off'\n    shared_buffers: 32MB\n    max_connections: 100|" \
      "$source_root/dist/patroni/patroni.yml" >"$config"
  for setting in 'ttl: 10' 'loop_wait: 1' 'retry_timeout: 4' 'synchronous_mode: true' 'primary_start_timeout: 0' \
                 "unix_socket_directories: '$work'"; do
    grep -q "^ *$setting\$" "$config" || fail "dist/patroni/patroni.yml changed: cannot set $setting"
  done
  chmod 644 "$config"
  superuser_password=$(openssl rand -hex 16)
  declare -gA pg_port rest_port
  for n in 1 2; do
    pg_port[$n]=$(free_port) rest_port[$n]=$(free_port)
    env PATRONI_NAME="pg$n" PATRONI_ETCD3_HOSTS="'127.0.0.1:$etcd_client'" \
      PATRONI_RESTAPI_LISTEN="127.0.0.1:${rest_port[$n]}" PATRONI_RESTAPI_CONNECT_ADDRESS="127.0.0.1:${rest_port[$n]}" \
      PATRONI_POSTGRESQL_LISTEN="127.0.0.1:${pg_port[$n]}" PATRONI_POSTGRESQL_CONNECT_ADDRESS="127.0.0.1:${pg_port[$n]}" \
      PATRONI_POSTGRESQL_DATA_DIR="$work/pg$n" PATRONI_POSTGRESQL_PGPASS="$work/pgpass$n" \
      PATRONI_SUPERUSER_USERNAME=postgres PATRONI_SUPERUSER_PASSWORD="$superuser_password" \
      PATRONI_REPLICATION_USERNAME=replicator PATRONI_REPLICATION_PASSWORD="$superuser_password" \
      "${as_pg[@]}" patroni "$config" >"$work/patroni$n.log" 2>&1 &
    patroni_pids+=($!)
    # The first node bootstraps the cluster before the second joins it.
    [[ $n == 1 ]] && { wait_for curl -sf "http://127.0.0.1:${rest_port[1]}/primary" || fail "no leader"; }
  done
  wait_for synchronous || fail "no synchronous standby: $(roles || true)"
  hosts="127.0.0.1:${pg_port[1]},127.0.0.1:${pg_port[2]}"
}

# The members' roles, as Patroni reports them ("leader sync_standby" once replication is synchronous).
roles() { curl -sf "http://127.0.0.1:${rest_port[1]}/cluster" | python3 -c 'import json, sys; print(" ".join(sorted(m["role"] for m in json.load(sys.stdin)["members"])))'; }
synchronous() { [[ $(roles) == "leader sync_standby" ]]; }
leader() { curl -sf "http://127.0.0.1:${rest_port[1]}/primary" >/dev/null && echo 1 || echo 2; }

patroni_haproxy() {
  haproxy_port=$(free_port)
  sed -e "s/^    bind \*:5000\$/    bind 127.0.0.1:$haproxy_port/" \
      -e "s/^    server pg1 10.0.0.11:5432 \(.*\) check port 8008\$/    server pg1 127.0.0.1:${pg_port[1]} \1 check port ${rest_port[1]}/" \
      -e "s/^    server pg2 10.0.0.12:5432 \(.*\) check port 8008\$/    server pg2 127.0.0.1:${pg_port[2]} \1 check port ${rest_port[2]}/" \
      "$source_root/dist/patroni/haproxy.cfg" >"$work/haproxy.cfg"
  grep -q "check port ${rest_port[2]}\$" "$work/haproxy.cfg" || fail "dist/patroni/haproxy.cfg changed: cannot point it at the test's nodes"
  haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
  haproxy_pid=$!
}

patroni_stop() {
  [[ -n $haproxy_pid ]] && kill "$haproxy_pid" 2>/dev/null
  # Patroni stops its PostgreSQL on SIGTERM; whatever is left is stopped at once.
  for pid in "${patroni_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${patroni_pids[@]}"; do timeout 20 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -9 "$pid" 2>/dev/null || true; done
  for n in 1 2; do
    [[ -f $work/pg$n/postmaster.pid ]] && "${as_pg[@]}" "$bin/pg_ctl" -D "$work/pg$n" -m immediate stop >/dev/null 2>&1 || true
  done
  [[ -n $etcd_pid ]] && kill "$etcd_pid" 2>/dev/null
  return 0
}
