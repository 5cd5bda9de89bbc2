#!/usr/bin/env bash
# docs/DEPLOY.md's "Backups and recovery", its commands run as written where one host can
# run them: every command of the section's ```sh blocks, in the order the section gives
# them, against a PostgreSQL cluster of this test's own archiving to stanza `storeapi` as
# the section's step 3 says for a cluster without Patroni (archive_command in
# postgresql.conf, PGBACKREST_STANZA in its environment), with the repository configured
# by dist/pgbackrest/pgbackrest.conf (write_pgbackrest_conf: the test's paths). Commands
# one host cannot run are named below (`elsewhere`), each with what runs it instead; a
# command of the section that is neither run nor named fails the test, and so does a
# named one the section no longer has (a new command must be classified).
# Stand-ins, as a shared machine needs: PGBACKREST_CONFIG names the configuration (pgBackRest
# and storeapi-recover read it), `/var/lib/postgresql/15/` is the test's directory, each
# `--port 5433` a free port (and `127.0.0.1:5433` after it that port), `127.0.0.1:5432`
# the cluster's address, the times `2026-11-28 14:03:00+00` the test's T, STORE_ID its
# store, `storeapi-recover`/`storeapi-admin` the checkout's and the build's; the store
# restore's example stanza pod-eu2 is `storeapi` (the store is on main, the one pod here)
# and its mover the cluster's superuser (the roles are deploy-database's).
# Between the commands the test makes T (after the backup), then a mistake (a product
# deleted through SQL) and archives it. Checked: the scratch recovery to T holds the
# deleted product and reports where it stopped; after the store restore the product is
# back on the cluster itself.
#   tests/backup/deploy_backups_pgtest.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "deploy backups test: $*" >&2; [[ -f ${log:-} ]] && tail -5 "$log" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "deploy backups test: skipped, needs root (runuser -u postgres)"; exit 77; }
command -v pgbackrest >/dev/null || { echo "SKIP: pgbackrest is not installed (tools/deps installs it)"; exit 77; }

# The section's commands one host cannot run: a prefix of each, and what runs it instead.
elsewhere=(
  "systemctl enable --now storeapi-backup-full@storeapi.timer|systemd timers of a deployment's hosts (the metrics they run: backup-metrics)"
  "systemctl stop storeapi storeapi-dispatch|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "systemctl stop patroni|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "runuser -u postgres -- env PGBACKREST_STANZA=storeapi storeapi-recover|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D /var/lib/postgresql/15/storeapi stop|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "sed -i '/^# storeapi-recover/,\$d' /var/lib/postgresql/15/storeapi/|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "PATRONI_ETCD3_HOSTS=\"'etcd1:2379','etcd2:2379','etcd3:2379'\" patronictl|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "systemctl start patroni|the whole Patroni cluster's recovery: backup-patroni-recovery"
  "systemctl start storeapi storeapi-dispatch|the whole Patroni cluster's recovery: backup-patroni-recovery"
)

bin=/usr/lib/postgresql/15/bin
work=$(mktemp -d)
chmod 755 "$work"
data=$work/main sock=$work/run log=$work/server.log
cleanup() {
  for pidfile in "$work"/*/postmaster.pid; do
    [[ -f $pidfile ]] && runuser -u postgres -- "$bin/pg_ctl" -D "$(dirname "$pidfile")" -m immediate -w stop >/dev/null 2>&1
  done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$sock" && chown postgres: "$work" "$sock"
d=$build; while [[ $d != / ]]; do [[ -x $d ]] || fail "$d is not reachable by postgres"; d=$(dirname "$d"); done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
source "$source_root/tests/support/wait_for.sh"
port=$(free_port)

source "$source_root/tests/backup/pgbackrest_conf.sh"
export PGBACKREST_CONFIG=$work/pgbackrest.conf
write_pgbackrest_conf "$PGBACKREST_CONFIG" "$work" "$data" "$port" "$sock"
runuser -u postgres -- "$bin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=trust -E UTF8 \
  --locale=C.UTF-8 >/dev/null
# Step 3 without Patroni: the archiving settings of dist/patroni/patroni.yml in
# postgresql.conf, the stanza from the environment.
cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sock'
wal_level = logical
archive_mode = on
archive_command = 'pgbackrest archive-push %p'
archive_timeout = 60
fsync = off
CONF
PGBACKREST_STANZA=storeapi runuser -u postgres -- "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null \
  || fail "no cluster"
url="postgresql://postgres@127.0.0.1:$port/storeapi"
sql() { psql -X -qAt "$url" -c "$1"; }
psql -X -qAt "postgresql://postgres@127.0.0.1:$port/postgres" -c "create database storeapi" >/dev/null
export STOREAPI_DATABASE_URL=$url
admin() { "$build/storeapi-admin" "$@"; }
admin migrate >/dev/null || fail "migrate"
store=$(admin store create --name Backups --slug backups --currency EUR --plan advanced --owner-email owner@backups.example |
        jq -r .id)
admin seed --store "$store" --orders 1 --products 2 --customers 1 --bookings 0 >/dev/null || fail "seed"
product=$(sql "select id from products where store_id = '$store' order by created_at, id limit 1")

# The section's commands: its ```sh blocks (indented in a list item or not), a line
# ending in a backslash joined with the next.
commands=$(awk '/^## Backups and recovery$/ { on = 1; next } on && /^## / { exit }
  on && /^ *```sh$/ { inside = 1; match($0, /^ */); indent = RLENGTH; next }
  inside && /^ *```$/ { inside = 0; next }
  inside { line = substr($0, indent + 1); if (sub(/\\$/, "", line)) { held = held line; next } print held line; held = "" }' \
  "$source_root/docs/DEPLOY.md")
[[ $(grep -c . <<<"$commands") -ge 10 ]] || fail "no commands found in DEPLOY's \"Backups and recovery\""
for entry in "${elsewhere[@]}"; do
  grep -qF -- "${entry%%|*}" <<<"$commands" || fail "named as run elsewhere but no longer in the section: ${entry%%|*}"
done

target="" scratch_port="" ran=0 skipped=()
make_target_and_mistake() {
  # After the backup's recorded stop (whole seconds; pgBackRest recovers to T only from a
  # backup stopped before it), T; then the mistake, archived.
  local stop
  stop=$(runuser -u postgres -- pgbackrest --stanza=storeapi --output=json info | jq '.[0].backup[-1].timestamp.stop')
  past() { (( $(sql "select floor(extract(epoch from clock_timestamp()))::bigint") > stop )); }
  wait_for past || fail "the clock did not pass the backup's stop"
  target=$(sql "select clock_timestamp()::text")
  passed() { [[ $(sql "select clock_timestamp() > '$target'") == t ]]; }
  wait_for passed || fail "the clock did not pass T"
  sql "set session_replication_role = replica;
       delete from variants where store_id = '$store' and product_id = '$product';
       delete from products where store_id = '$store' and id = '$product'" >/dev/null
  local segment
  segment=$(sql "select pg_walfile_name(pg_switch_wal())")
  archived() { [[ $(sql "select coalesce(last_archived_wal >= '$segment', false) from pg_stat_archiver") == t ]]; }
  wait_for archived || fail "WAL segment $segment was not archived"
}
while IFS= read -r command; do
  [[ -n $command ]] || continue
  for entry in "${elsewhere[@]}"; do
    if [[ $command == "${entry%%|*}"* ]]; then skipped+=("$command  (${entry#*|})"); continue 2; fi
  done
  if [[ $command == *storeapi-recover* ]]; then
    [[ -n $target ]] || make_target_and_mistake
    scratch_port=$(free_port)
    command=${command//--port 5433/--port $scratch_port}
    command=${command//--stanza pod-eu2/--stanza storeapi}
    command=${command//"-- storeapi-recover "/"-- $source_root/dist/pgbackrest/storeapi-recover "}
  fi
  command=${command//"2026-11-28 14:03:00+00"/$target}
  command=${command//127.0.0.1:5433/127.0.0.1:$scratch_port}
  command=${command//127.0.0.1:5432/127.0.0.1:$port}
  command=${command//\/var\/lib\/postgresql\/15\//$work\/}
  command=${command//STORE_ID/$store}
  command=${command//STOREAPI_MOVER_USER=storeapi_mover/STOREAPI_MOVER_USER=postgres}
  command=${command//" storeapi-admin "/" $build/storeapi-admin "}
  eval "$command" >"$work/out" 2>"$work/err" || fail "this DEPLOY command failed: $command: $(cat "$work/err")"
  ran=$((ran + 1))
  if [[ $command == *storeapi-recover*--scratch* && $command == *--history-from* ]]; then
    report=$(cat "$work/out")
    [[ $(jq -r .recovery_stopped <<<"$report") == *"recovery stopping"* ]] || fail "the report says no stop: $report"
    copy="postgresql://postgres@127.0.0.1:$scratch_port/storeapi"
    [[ $(psql -X -qAt "$copy" -c "select count(*) from products where id = '$product'") == 1 ]] \
      || fail "the copy recovered to T lacks the product deleted after T"
  fi
  if [[ $command == *"store restore"* ]]; then
    [[ $(sql "select count(*) from products where id = '$product'") == 1 ]] || fail "the store restore did not bring the product back"
    restored=$(jq -c '{rows_restored, write_pause_seconds}' "$work/out")
  fi
done <<<"$commands"
[[ -n ${restored:-} ]] || fail "the section's store restore did not run"
echo "deploy backups test: $ran of DEPLOY's commands run as written (store restore: $restored); named as run elsewhere:"
printf '  %s\n' "${skipped[@]}"
