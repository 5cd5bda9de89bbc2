#!/usr/bin/env bash
# The plans of the read statements on the 1,000,000-order store of bench/load/reads.sh,
# as the server runs them: its own prepared statements (build/bench/print-statements),
# forced to PostgreSQL's generic plan (what a prepared statement uses after five runs).
# Prints markdown for bench/RESULTS.md. The sync cases first stamp 20 orders as changed now.
set -euo pipefail
source "$(dirname "$0")/../load/bench_env.sh"
bench_setup
s=$(ensure_store bench-1m 1000000)

neg='-infinity'; pos='infinity'
max=ffffffff-ffff-ffff-ffff-ffffffffffff; nil=00000000-0000-0000-0000-000000000000
IFS='|' read -r mid_t mid_id < <(psql_bench -c "select created_at, id from orders where store_id = '$s'
  order by created_at, id offset (select count(*) / 2 from orders where store_id = '$s') limit 1")
psql_bench -c "update orders set updated_at = api.now_ms() where store_id = '$s' and id in
  (select id from orders where store_id = '$s' order by created_at desc offset 1000 limit 20)" >/dev/null
minute_ago=$(psql_bench -c "select now() - interval '1 minute'")
# Every order created in the newest tenth of the store was changed after this instant.
window_start=$(psql_bench -c "select created_at from orders where store_id = '$s'
  order by created_at offset (select count(*) * 9 / 10 from orders where store_id = '$s') limit 1")
sku=$(psql_bench -c "select sku from variants where store_id = '$s' and deleted_at is null order by id limit 1")
email=$(psql_bench -c "select upper(email) from customers where store_id = '$s' order by id limit 1")

plan() {  # TITLE STATEMENT ARGS
  echo "### $1"
  echo
  echo '```'
  { build/bench/print-statements
    echo "set plan_cache_mode = force_generic_plan;"
    echo "explain (analyze, buffers, costs off) execute $2($3);"
  } | psql "$STOREAPI_DATABASE_URL" -X -q 2>&1 | grep -v '^PREPARE' | sed -e 's/^ *QUERY PLAN *$//' -e '/^-*$/d' -e '/^([0-9]* rows)$/d'
  echo '```'
  echo
}

page="'$neg', '$max', '$pos', '$nil', 26"
plan "GET /v1/orders/{id}" orders_get "'$s', '$mid_id'"
plan "GET /v1/orders?limit=25 (first page)" orders_walk_desc "'$s', $page, null, null, null"
plan "GET /v1/orders?limit=25 from the middle of 1,000,000 (cursor there)" orders_walk_desc \
  "'$s', '$neg', '$max', '$mid_t', '$mid_id', 26, null, null, null"
plan "GET /v1/orders?order=asc&status=draft from the middle" orders_walk_asc \
  "'$s', '$mid_t', '$mid_id', '$pos', '$nil', 26, 'draft', null, null"
plan "Sync poll: updated_after = 1 minute ago, order=asc (20 changed)" orders_sync_asc \
  "'$s', $page, null, null, null, '$minute_ago', '$pos'"
plan "Full sync: updated_after = 2000-01-01, order=asc (every order changed since)" orders_sync_asc \
  "'$s', $page, null, null, null, '2000-01-01T00:00:00Z', '$pos'"
plan "Worst case: asc sync whose window (100,000+ changes) starts late in the store" orders_sync_asc \
  "'$s', $page, null, null, null, '$window_start', '$pos'"
plan "GET /v1/products?sku=…" products_selective_desc "'$s', $page, null, null, '$neg', '$pos', '$sku'"
plan "GET /v1/customers?email=… (other case)" customers_selective_desc "'$s', $page, '$neg', '$pos', '$email'"
