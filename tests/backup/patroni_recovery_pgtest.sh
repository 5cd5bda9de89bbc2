#!/usr/bin/env bash
# A whole Patroni cluster recovered to a time T, as docs/DEPLOY.md "Recovering a cluster to
# a time T" tells an operator to: etcd and two Patroni nodes running dist/patroni/patroni.yml
# (its archive_command, the stanza from PGBACKREST_STANZA) and a pgBackRest repository
# configured by dist/pgbackrest/pgbackrest.conf (paths and cipher passphrase of the
# test's own); the stanza created and a full backup taken on the leader; a storeapi node on
# the multi-host URL; keyed stock writes (each key also its movement's note, one line per
# write: key status acknowledged_ms sent_ms) on both sides of T, then a mistake (the
# store's stock history and a product deleted through SQL). Then DEPLOY's commands, run as
# written but for the test's paths and ports: storeapi stopped, Patroni stopped (the
# standby first), storeapi-recover into the leader's data directory, that PostgreSQL
# stopped and storeapi-recover's port removed from its postgresql.auto.conf, the cluster
# removed from etcd with patronictl, Patroni started on the recovered node, then on the
# standby. Checked:
#   - every write acknowledged before T is there once, none sent after T is, the deleted
#     product and stock history are back;
#   - the cluster serves writes again: a storeapi node on it answers a keyed write, and
#     the standby (its data directory left as it was, beyond T on the old timeline)
#     follows the new timeline, synchronous again, and has that write;
#   - pgBackRest's recovery settings left in postgresql.auto.conf are set aside by Patroni
#     on both nodes; the leader's timeline is the recovery's plus Patroni's promotion.
# Seen failing: `patronictl --dcs-url etcd3://…` (Patroni 3.0 knows no such scheme; the
# hosts come from PATRONI_ETCD3_HOSTS, as DEPLOY now says); with the leader's Patroni
# stopped before the standby's, the standby is promoted on the old timeline (the leader
# ends one timeline further than the recovery's). tools/mutants: patroni.yml's
# archive_command and use_pg_rewind.
#   tests/backup/patroni_recovery_pgtest.sh BUILD_DIR
set -euo pipefail
build=$1
source_root=$(cd "$(dirname "$0")/../.." && pwd)
test_name="patroni recovery test"
command -v pgbackrest >/dev/null || { echo "SKIP: pgbackrest is not installed (tools/deps installs it)"; exit 77; }
source "$source_root/tests/ha/patroni_pair.sh"
writer_pids=()
cleanup() {
  for pid in "${writer_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  patroni_pair_cleanup
}
trap cleanup EXIT

start_etcd
write_patroni_config
for n in 1 2; do pg_port[$n]=$(free_port) rest_port[$n]=$(free_port); done

# --- pgBackRest: the shipped configuration, the paths the test's ------------------------
source "$source_root/tests/backup/pgbackrest_conf.sh"
backrest_conf=$work/pgbackrest.conf
write_pgbackrest_conf "$backrest_conf" "$work" "$work/pg1" "${pg_port[1]}" "$work"
# What Patroni's environment file adds on a node of stanza storeapi (PGBACKREST_STANZA, as
# dist/patroni/patroni.yml's header says); the configuration's path and the data directory
# are the test's own.
backrest_env() { echo PGBACKREST_CONFIG="$backrest_conf" PGBACKREST_STANZA=storeapi PGBACKREST_PG1_PATH="$work/pg$1" \
  PGBACKREST_PG1_PORT="${pg_port[$1]}"; }
# shellcheck disable=SC2046
start_patroni 1 $(backrest_env 1)
# shellcheck disable=SC2046
start_patroni 2 $(backrest_env 2)
wait_for synchronous || fail "no synchronous standby: $(roles || true)"
create_storeapi_database
other_product=$(sql "select id from products where store_id = '$store' and id <> '$product' limit 1")
[[ -n $other_product ]] || fail "the seed made one product only"

# shellcheck disable=SC2046
backrest() { "${as_pg[@]}" env $(backrest_env 1) pgbackrest "$@"; }
backrest stanza-create >"$work/backrest.log" 2>&1 || fail "stanza-create: $(cat "$work/backrest.log")"
backrest check >>"$work/backrest.log" 2>&1 || fail "check: $(cat "$work/backrest.log")"
backrest --type=full backup >>"$work/backrest.log" 2>&1 || fail "backup: $(cat "$work/backrest.log")"
# pgBackRest recovers to T only from a backup whose stop time, in whole seconds, is before
# T: the writes start once the database's clock is in a later second.
backup_stop=$(backrest --output=json info | jq '.[0].backup[-1].timestamp.stop')
past_backup() { (( $(sql "select floor(extract(epoch from clock_timestamp()))::bigint") > backup_stop )); }
wait_for past_backup || fail "the clock did not pass the backup's stop ($backup_stop)"

start_node a "$url"
# --- writes around T, the mistake -----------------------------------------------------------
writer() {
  local w=$1 n=0 write status sent
  while [[ ! -e $work/stop ]]; do
    write="w$w-$n" sent=$(now_ms)
    status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
      -H "Authorization: Bearer $key" -H "Idempotency-Key: $write" -H 'Content-Type: application/json' \
      -d "{\"mode\":\"adjust\",\"quantity\":1,\"note\":\"$write\"}" \
      "http://127.0.0.1:${node_port[a]}/v1/products/$product/variants/$variant/stock" || true)
    echo "$write $status $(now_ms) $sent" >>"$work/writer$w.out"
    n=$((n + 1))
  done
}
for w in 1 2; do writer "$w" & writer_pids+=($!); done
# Counted, not timed: writes acknowledged before T, then writes sent after T acknowledged.
acknowledged_since() { (( $(cat "$work"/writer*.out 2>/dev/null | awk -v since="$1" '$2 == 200 && $4 > since' | wc -l) >= 20 )); }
wait_for acknowledged_since 0 || fail "no writes acknowledged before T"
target_ms=$(now_ms)
target=$(date -u -d "@$((target_ms / 1000)).$(printf %03d $((target_ms % 1000)))" '+%Y-%m-%d %H:%M:%S.%3N+00')
wait_for acknowledged_since "$target_ms" || fail "no writes acknowledged after T"
touch "$work/stop"
for pid in "${writer_pids[@]}"; do wait "$pid"; done
writer_pids=()
cat "$work"/writer*.out >"$work/writes"

sql "set session_replication_role = replica;
     delete from stock_movements where store_id = '$store';
     delete from variants where store_id = '$store' and product_id = '$other_product';
     delete from products where store_id = '$store' and id = '$other_product'" >/dev/null
[[ $(sql "select count(*) from products where id = '$other_product'") == 0 ]] || fail "the mistake was not made"
# Everything up to the mistake in the archive (archive_timeout would, within a minute).
segment=$(sql "select pg_walfile_name(pg_switch_wal())")
archived() { [[ $(sql "select coalesce(last_archived_wal >= '$segment', false) from pg_stat_archiver") == t ]]; }
wait_for archived || fail "WAL segment $segment was not archived: $(sql 'select * from pg_stat_archiver')"

# --- DEPLOY's recovery of the whole cluster ----------------------------------------------------
recovery_started=$(now_ms)
kill "${node_pids[0]}"
wait "${node_pids[0]}" || true
node_pids=()
stop_patroni 2
stop_patroni 1
scratch_port=$(free_port)
# shellcheck disable=SC2046
"${as_pg[@]}" env $(backrest_env 1) "$source_root/dist/pgbackrest/storeapi-recover" --config "$backrest_conf" \
  --stanza storeapi --target "$target" --pg-path "$work/pg1" --port "$scratch_port" --socket-dir "$work" \
  >"$work/recovery.json" 2>"$work/recover.log" || fail "storeapi-recover: $(cat "$work/recover.log")"
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/pg1" stop >/dev/null || fail "pg_ctl stop"
sed -i '/^# storeapi-recover/,$d' "$work/pg1/postgresql.auto.conf"
printf 'storeapi\nYes I am aware\n' | PATRONI_ETCD3_HOSTS="'127.0.0.1:$etcd_client'" patronictl -c "$config" remove storeapi \
  >"$work/patronictl.log" 2>&1 || fail "patronictl remove: $(cat "$work/patronictl.log")"
# shellcheck disable=SC2046
start_patroni 1 $(backrest_env 1)
# shellcheck disable=SC2046
start_patroni 2 $(backrest_env 2)
WAIT_SECONDS=90 wait_for synchronous || fail "the standby did not follow as a synchronous standby: $(roles || true)"
# pgBackRest's recovery settings, left in postgresql.auto.conf, set aside by Patroni (as
# DEPLOY says), on the recovered node and on the standby rewound from it.
for n in 1 2; do
  ! grep -qE '^ *(recovery_target|restore_command|port) *=' "$work/pg$n/postgresql.auto.conf" \
    || fail "recovery settings in node $n's postgresql.auto.conf: $(cat "$work/pg$n/postgresql.auto.conf")"
done
recovered_ms=$(( $(now_ms) - recovery_started ))

# --- the writes and the mistake ----------------------------------------------------------------
sql "select note from stock_movements where variant_id = '$variant' and note like 'w%'" | sort >"$work/applied"
awk -v t="$target_ms" '$2 == 200 && $3 < t { print $1 }' "$work/writes" | sort >"$work/before"
awk -v t="$target_ms" '$4 > t { print $1 }' "$work/writes" | sort >"$work/after"
missing=$(comm -23 "$work/before" "$work/applied" | sed -n 1,5p)
[[ -z $missing ]] || fail "acknowledged before T but not recovered: $missing"
[[ -z $(uniq -d "$work/applied" | sed -n 1,5p) ]] || fail "applied twice: $(uniq -d "$work/applied" | sed -n 1,5p)"
present_after=$(comm -12 "$work/after" "$work/applied" | sed -n 1,5p)
[[ -z $present_after ]] || fail "sent after T but recovered: $present_after"
acknowledged_after=$(awk -v t="$target_ms" '$2 == 200 && $4 > t' "$work/writes" | wc -l)
[[ $(sql "select count(*) from products where id = '$other_product'") == 1 ]] || fail "the deleted product is not back"

# --- serving again, the standby on the new timeline ----------------------------------------------
start_node b "$url"
status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST \
  -H "Authorization: Bearer $key" -H "Idempotency-Key: after-recovery" -H 'Content-Type: application/json' \
  -d '{"mode":"adjust","quantity":1,"note":"after-recovery"}' \
  "http://127.0.0.1:${node_port[b]}/v1/products/$product/variants/$variant/stock")
[[ $status == 200 ]] || fail "a keyed write after the recovery answered $status"
leader=$(curl -sf "http://127.0.0.1:${rest_port[1]}/primary" >/dev/null && echo 1 || echo 2)
standby=$((3 - leader))
on() { psql -qAt "postgresql://postgres@127.0.0.1:${pg_port[$1]}/storeapi" -c "$2"; }
leader_timeline=$(on "$leader" "select ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int")
# The recovery's promotion, then Patroni's: no standby promoted in between on the old
# timeline (as one whose Patroni still ran when the leader's stopped would be).
recovered_timeline=$(jq .timeline "$work/recovery.json")
(( leader_timeline == recovered_timeline + 1 )) \
  || fail "the leader is on timeline $leader_timeline, the recovery promoted to $recovered_timeline"
on_new_timeline() { [[ $(on "$standby" "select received_tli from pg_stat_wal_receiver") == "$leader_timeline" ]]; }
wait_for on_new_timeline || fail "the standby does not follow timeline $leader_timeline"
has_write() { [[ $(on "$standby" "select count(*) from stock_movements where note = 'after-recovery'") == 1 ]]; }
wait_for has_write || fail "the standby lacks the write made after the recovery"

echo "patroni recovery: $(wc -l <"$work/before") writes acknowledged before T all recovered once," \
     "$(wc -l <"$work/after") sent after T ($acknowledged_after acknowledged) none recovered; the deleted rows back;" \
     "Patroni stopped to both nodes synchronous again on timeline $leader_timeline in $recovered_ms ms;" \
     "report: $(jq -c '{timeline, recovery_stopped}' "$work/recovery.json")"
