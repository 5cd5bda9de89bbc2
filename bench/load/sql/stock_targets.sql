-- The targets of the stock-adjust benchmarks (bench/load/stock-adjust.sh, bench/profile):
-- the first :limit tracked live variants of live products of store :'store', as
-- "product_id variant_id" lines (psql -At -F ' '), their stock first raised out of reach
-- of zero so that adjustments never fail for want of stock.
update variants v set stock = 1000000 from products p
 where p.store_id = v.store_id and p.id = v.product_id and v.store_id = :'store'
   and v.deleted_at is null and p.deleted_at is null and v.stock is not null;
select v.product_id, v.id from variants v join products p on p.store_id = v.store_id and p.id = v.product_id
 where v.store_id = :'store' and v.deleted_at is null and p.deleted_at is null and v.stock is not null
 order by v.id limit :limit;
