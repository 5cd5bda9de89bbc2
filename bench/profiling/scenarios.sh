# Sourced by bench/profile and bench/flame (after bench/load/bench_env.sh, with the server
# started): the four scenarios' requests, and their baselines' setup.

# full_key: a key with every scope for the store (the writes), as "key id"; kept under .dev/bench.
full_key() {
  local file=$STOREAPI_DEV_DIR/keys/$store-full
  if [[ ! -s $file ]]; then
    "$admin" key create --store "$store" --name bench-full --access full |
      python3 -c 'import json,sys; k = json.load(sys.stdin); print(k["key"], k["id"])' >"$file"
  fi
  cat "$file"
}

value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# setup_scenario NAME: sets conns, request (bench/openloop's options and URL), baseline
# (nginx or pgbench) with nginx_port or pgbench_args.
setup_scenario() {
  local order page targets key id
  conns=${CONNS:-32}
  pgbench_args=()
  case $1 in
    store)
      conns=${CONNS:-64}
      request=(--header "Authorization: Bearer $read_key" "$base/v1/store")
      baseline=nginx
      start_nginx "$work/nginx" "$(curl -fs -H "Authorization: Bearer $read_key" "$base/v1/store")" "$THREADS"
      nginx_port=$port
      ;;
    order)
      order=$(psql_bench -c "select id from orders where store_id = '$store' order by created_at desc offset 5000 limit 1")
      request=(--header "Authorization: Bearer $read_key" "$base/v1/orders/$order")
      baseline=pgbench
      pgbench_script orders_get "$work/order.sql" "$store" "$order"
      pgbench_args=(-f "$work/order.sql" "${pgbench_defines[@]}")
      ;;
    orders-page)
      request=(--header "Authorization: Bearer $read_key" "$base/v1/orders?limit=25")
      baseline=pgbench
      page=("$store" -infinity ffffffff-ffff-ffff-ffff-ffffffffffff infinity 00000000-0000-0000-0000-000000000000 26 NULL NULL NULL)
      pgbench_script orders_walk_desc "$work/page.sql" "${page[@]}"
      pgbench_args=(-f "$work/page.sql" "${pgbench_defines[@]}")
      ;;
    stock-adjust)
      read -r key id <<<"$(full_key)"
      psql "$STOREAPI_DATABASE_URL" -X -q -At -F ' ' -v store="$store" -v limit=32 \
        -f bench/load/sql/stock_targets.sql | grep -v '^UPDATE' >"$work/targets"
      awk '{ print "/v1/products/" $1 "/variants/" $2 "/stock" }' "$work/targets" >"$work/paths"
      request=(--method POST --targets-file "$work/paths" --header "Authorization: Bearer $key"
               --header "Content-Type: application/json" --header "Idempotency-Key: profile-$(date +%s%N)-{n}"
               --body '{"mode":"adjust","quantity":1}' "$base")
      baseline=pgbench
      while read -r product variant; do
        sed -e "s/PRODUCT_ID/$product/" -e "s/VARIANT_ID/$variant/" bench/load/stock_adjust.pgbench >"$work/$variant.sql"
        pgbench_args+=(-f "$work/$variant.sql")
      done <"$work/targets"
      pgbench_args+=(-D store="$store" -D api_key="$id" -D fp="$(printf 'bench' | sha256sum | cut -c1-64)")
      ;;
    *) echo "unknown scenario: $1 (store, order, orders-page, stock-adjust)" >&2; exit 2 ;;
  esac
}
