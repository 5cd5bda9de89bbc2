#!/usr/bin/env bash
# tools/check-migrations against migrations made up here: an expand-only migration and a
# no-transaction CONCURRENTLY index pass; each unsafe form fails naming its rule; an
# exception in the header lets one through only when CHANGELOG.md names the migration; a
# grandfathered version is not checked; a repeatable file holds definitions only. (The meson test `migration-rules` runs it on sql/.)
set -euo pipefail
root=$1
check=$root/tools/check-migrations
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/sql"
changelog=$dir/CHANGELOG.md
echo "# Changelog" > "$changelog"

passes() {  # NAME: the migration written to $dir/sql/NAME.sql passes
  "$check" "$dir/sql" "$changelog" 2> "$dir/out" || { echo "FAIL: $1 was refused:"; cat "$dir/out"; exit 1; }
}
fails() {  # NAME RULE
  if "$check" "$dir/sql" "$changelog" 2> "$dir/out"; then echo "FAIL: $1 passed"; exit 1; fi
  grep -q "\[$2\]" "$dir/out" || { echo "FAIL: $1: no [$2] in:"; cat "$dir/out"; exit 1; }
}
one() {  # NAME SQL: the only migration of $dir/sql
  rm -f "$dir"/sql/*.sql
  printf '%s\n' "$2" > "$dir/sql/$1.sql"
}

one 900_expand "create table gift_cards (store_id uuid not null, id uuid not null, primary key (store_id, id));
create index gift_cards_created on gift_cards (store_id, id);
alter table orders add column gift_card uuid;
alter table orders add column note text not null default 'x';
alter table orders add constraint orders_note_short check (length(note) < 100) not valid;"
passes 900_expand
one 900_index "-- migration: no-transaction
drop index concurrently if exists orders_note;
create index concurrently orders_note on orders (store_id, note);"
passes 900_index

for case in \
  "index-concurrently|create index orders_note on orders (store_id, note);" \
  "no-transaction|create index concurrently orders_note on orders (store_id, note);" \
  "table-rewrite|alter table orders alter column total type numeric(20, 4);" \
  "table-rewrite|alter table products add column seen timestamptz default now();" \
  "table-rewrite|vacuum full events;" \
  "full-table-lock|alter table variants alter column sku set not null;" \
  "full-table-lock|alter table orders add constraint orders_c foreign key (store_id, customer_id) references customers (store_id, id);" \
  "full-table-lock|lock table stock_movements;" \
  "batched-backfill|update orders set note = 'x' where note is null;" \
  "batched-backfill|insert into events (store_id, type, payload) select store_id, 'x', '{}' from orders;" \
  "expand-only|alter table orders drop column note;" \
  "expand-only|alter table customers rename column email to mail;" \
  "expand-only|drop function api.order_json(orders);"; do
  rule=${case%%|*}
  one 901_bad "${case#*|}"
  fails "${case#*|}" "$rule"
done

one 902_excepted "-- migration-exception: table-rewrite: the column is new and empty in every release so far
alter table orders alter column gift_card type text;"
if "$check" "$dir/sql" "$changelog" 2> "$dir/out"; then echo "FAIL: an exception the changelog does not name passed"; exit 1; fi
grep -q "CHANGELOG.md must name it (902_excepted)" "$dir/out" || { echo "FAIL: changelog not asked for:"; cat "$dir/out"; exit 1; }
echo "- 902_excepted rewrites orders" >> "$changelog"
passes "an exception the changelog names"

# A repeatable file defines; its data work runs after it commits, named in its header.
rm -f "$dir"/sql/*.sql
mkdir -p "$dir/sql/functions"
printf '%s\n' "create or replace function api.f() returns int language sql as \$\$ select 1 \$\$;" \
  "select api.render_documents(null);" > "$dir/sql/functions/10_render.sql"
fails "data work in a repeatable file" definitions-only
printf '%s\n' "-- migration: then call api.render_stale_documents(null, 1000, true);" \
  "create or replace function api.f() returns int language sql as \$\$ select 1 \$\$;" \
  "comment on function api.f() is 'one';" > "$dir/sql/functions/10_render.sql"
passes "a repeatable file whose data work follows its commit"
rm -r "$dir/sql/functions"

one 033_grandfathered "alter table orders alter column total type numeric(20, 4);"
passes "a grandfathered version"

echo "ok"
