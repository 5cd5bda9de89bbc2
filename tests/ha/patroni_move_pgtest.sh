#!/usr/bin/env bash
# A store moved onto and off a pod that is a Patroni cluster: the pair of
# tests/ha/patroni_pair.sh (dist/patroni/patroni.yml, a leader and its synchronous
# standby) made ready to be a pod as docs/DEPLOY.md "Adding a pod" says — the runtime role
# `storeapi` and an empty database on it, the passwords in a password file (PGPASSFILE),
# none in the pod's URL — then the cases of tests/ha/patroni_move_pgtest.cpp (`pod add` of
# the pod's URL, the moves under keyed writes, a move cut by a failover, their checks) run
# against it.
#   tests/ha/patroni_move_pgtest.sh BUILD_DIR CASES_BINARY
set -euo pipefail
build=$1 cases=$2
source_root=$(cd "$(dirname "$0")/../.." && pwd)
test_name="patroni move test"
source "$source_root/tests/ha/patroni_pair.sh"
trap patroni_pair_cleanup EXIT
start_etcd
write_patroni_config
start_patroni 1
start_patroni 2
wait_for synchronous || fail "no synchronous standby: $(roles || true)"
hosts="127.0.0.1:${pg_port[1]},127.0.0.1:${pg_port[2]}"

# The roles the pod is reached as: the runtime role (the pod's URL: the API nodes), and the
# cases' cluster superuser (`postgres` as root, else the caller), by whose name the admin
# tool reaches the pod and moves stores (the mover, a superuser on both pods).
runtime_password=$(openssl rand -hex 16)
superuser=postgres
[[ $(id -u) -eq 0 ]] || superuser=$(id -un)
cat >"$work/pgpass" <<EOF
*:*:*:storeapi:$runtime_password
*:*:*:$superuser:$superuser_password
EOF
chmod 600 "$work/pgpass"
# Read by the main cluster's PostgreSQL too (its subscription to this pod), which runs as
# `postgres` when root.
[[ $(id -u) -eq 0 ]] && chown postgres: "$work/pgpass"
export PGPASSFILE=$work/pgpass
as_superuser() { psql -qAt "postgresql://postgres@$hosts/postgres?target_session_attrs=read-write" "$@"; }
PGPASSWORD=$superuser_password as_superuser -c "create role storeapi login password '$runtime_password'" >/dev/null \
  || fail "create role storeapi"
[[ $superuser == postgres ]] || PGPASSWORD=$superuser_password \
  as_superuser -c "create role \"$superuser\" superuser login password '$superuser_password'" >/dev/null \
  || fail "create role $superuser"
# Two pods' databases on the cluster, one per case.
for database in storeapi storeapi_failover; do
  PGPASSWORD=$superuser_password as_superuser -c "create database $database" >/dev/null || fail "create database $database"
done

pod_url() { echo "postgresql://storeapi@$hosts/$1?target_session_attrs=read-write&tcp_user_timeout=2000"; }
STOREAPI_TEST_PATRONI_POD_URL=$(pod_url storeapi) STOREAPI_TEST_PATRONI_FAILOVER_POD_URL=$(pod_url storeapi_failover) \
  STOREAPI_TEST_PATRONI_DATA_DIRS="$work/pg1,$work/pg2" STOREAPI_TEST_PATRONI_REST_PORTS="${rest_port[1]},${rest_port[2]}" \
  "$cases" || fail "the cases failed (above)"
