-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes; first
-- defined by sql/006_render.sql. Change a function here, not in a new migration; a
-- changed signature needs its old one dropped in a numbered migration first.
-- A changed rendering leaves the stored documents stale: once this file has committed,
-- `migrate` renders them again in small batches (api.render_stale_documents, below),
-- outside the locks this file's triggers take, and records the file only then.
-- migration: then call api.render_stale_documents(null, 1000, true);
--
-- Rendering: each resource's API JSON, built in one place and used by every reader —
-- the read endpoints, the write endpoints (a write returns the resource exactly as reads
-- render it) and the event payloads written in the same transaction as a change
-- (docs/DECISIONS.md, "Rendering: one renderer, in SQL").
--
-- Why text concatenation rather than json_build_object: it is compact (no " : "), keeps
-- the spec's field order, and measured 1.7x faster per row (json_build_object looks up
-- every argument's output function on every call). Every function is STABLE and a single
-- expression without sub-selects, so the planner inlines it into the calling query. The
-- parts that need other tables (line items, variants, translations) are table functions
-- of a single SELECT, which the planner also inlines when they are joined LATERAL: a
-- list query renders a whole page in one plan, with no per-row function calls (a per-row
-- call of a non-inlined SQL function measured 2.4x slower).

-- Scalars as JSON text.
create or replace function api.ts(t timestamptz) returns text
language sql stable parallel safe as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
comment on function api.ts(timestamptz) is 'RFC 3339 UTC with milliseconds, as the API prints timestamps';

create or replace function api.j_ts(t timestamptz) returns text
language sql stable parallel safe as $$
  select coalesce('"' || api.ts(t) || '"', 'null')
$$;

create or replace function api.j_str(s text) returns text
language sql stable parallel safe as $$
  select coalesce(to_json(s)::text, 'null')
$$;

create or replace function api.j_int(n bigint) returns text
language sql stable parallel safe as $$
  select coalesce(n::text, 'null')
$$;

create or replace function api.j_amount(a numeric) returns text
language sql stable parallel safe as $$
  select '"' || a::numeric(10, 2)::text || '"'
$$;

create or replace function api.j_strings(a text[]) returns text
language sql stable parallel safe as $$
  select to_json(a)::text
$$;

-- A variant's price after its discount, never below zero.
create or replace function api.discounted_price(price numeric, discount_type text, discount_value numeric) returns numeric
language sql stable parallel safe as $$
  select greatest(0, case discount_type
                       when 'percentage' then round(price * (100 - discount_value) / 100, 2)
                       when 'fixed' then price - discount_value
                       else price end)::numeric(10, 2)
$$;

create or replace function api.address_json(a jsonb) returns text
language sql stable parallel safe as $$
  select '{"first_name":' || api.j_str(a ->> 'first_name')
      || ',"last_name":' || api.j_str(a ->> 'last_name')
      || ',"phone":' || api.j_str(a ->> 'phone')
      || ',"line1":' || api.j_str(a ->> 'line1')
      || ',"line2":' || api.j_str(a ->> 'line2')
      || ',"city":' || api.j_str(a ->> 'city')
      || ',"state":' || api.j_str(a ->> 'state')
      || ',"postal_code":' || api.j_str(a ->> 'postal_code')
      || ',"country":' || api.j_str(a ->> 'country')
      || ',"country_code":' || api.j_str(a ->> 'country_code') || '}'
$$;

create or replace function api.line_item_json(li order_line_items) returns text
language sql stable parallel safe as $$
  select '{"id":"' || li.id
      || '","product_id":"' || li.product_id
      || '","product_name":' || api.j_str(li.product_name)
      || ',"variant_id":"' || li.variant_id
      || '","variant_title":' || api.j_str(li.variant_title)
      || ',"quantity":' || li.quantity
      || ',"unit_price":' || api.j_amount(li.unit_price)
      || ',"unit_discount":' || api.j_amount(li.unit_discount)
      || ',"total":' || api.j_amount(li.total) || '}'
$$;

-- An order's line items as a JSON array, in their original order. Join it LATERAL.
create or replace function api.line_items_json(store uuid, order_id uuid) returns table (line_items text)
language sql stable parallel safe as $$
  select '[' || coalesce(string_agg(api.line_item_json(li), ',' order by li.position), '') || ']'
    from order_line_items li
   where li.store_id = store and li.order_id = line_items_json.order_id
$$;

create or replace function api.order_json(o orders, line_items text) returns text
language sql stable parallel safe as $$
  select '{"object":"order","id":"' || o.id
      || '","order_number":' || o.order_number
      || ',"status":"' || o.status
      || '","fulfillment_status":"' || o.fulfillment_status
      || '","channel":"' || o.channel
      || '","currency":"' || o.currency
      || '","subtotal":' || api.j_amount(o.subtotal)
      || ',"shipping_total":' || api.j_amount(o.shipping_total)
      || ',"tax_total":' || api.j_amount(o.tax_total)
      || ',"total":' || api.j_amount(o.total)
      || ',"payment_method":' || api.j_str(o.payment_method)
      || ',"payment_gateway":' || api.j_str(o.payment_gateway)
      || ',"paid_at":' || api.j_ts(o.paid_at)
      || ',"tracking_number":' || api.j_str(o.tracking_number)
      || ',"tracking_carrier":' || api.j_str(o.tracking_carrier)
      || ',"customer":{"id":"' || o.customer_id
      || '","name":' || api.j_str(o.customer_name)
      || ',"email":' || api.j_str(o.customer_email)
      || ',"phone":' || api.j_str(o.customer_phone)
      || '},"billing_address":' || api.address_json(o.billing_address)
      || ',"shipping_address":' || api.address_json(o.shipping_address)
      || ',"line_items":' || line_items
      || ',"created_at":' || api.j_ts(o.created_at)
      || ',"updated_at":' || api.j_ts(o.updated_at) || '}'
$$;

-- One order with its line items (writes and events; lists join the line items per page).
-- plpgsql, not SQL: a SQL function with a FROM cannot be inlined into a scalar context and
-- would be planned again on every call (~1 ms); plpgsql keeps its plan for the connection's lifetime.
create or replace function api.order_json(o orders) returns text
language plpgsql stable parallel safe as $$
begin
  return (select api.order_json(o, li.line_items) from api.line_items_json(o.store_id, o.id) li);
end $$;

create or replace function api.variant_json(v variants) returns text
language sql stable parallel safe as $$
  select '{"object":"product_variant","id":"' || v.id
      || '","product_id":"' || v.product_id
      || '","title":' || api.j_str(v.title)
      || ',"sku":' || api.j_str(v.sku)
      || ',"barcode":' || api.j_str(v.barcode)
      || ',"price":' || api.j_amount(v.price)
      || ',"discount_type":' || api.j_str(v.discount_type)
      || ',"discount_value":' || api.j_amount(v.discount_value)
      || ',"stock":' || api.j_int(v.stock)
      || ',"low_stock_threshold":' || v.low_stock_threshold
      || ',"option1":' || api.j_str(v.option1)
      || ',"option2":' || api.j_str(v.option2)
      || ',"option3":' || api.j_str(v.option3)
      || ',"position":' || v.position
      || ',"image_url":' || api.j_str(v.image_url)
      || ',"created_at":' || api.j_ts(v.created_at)
      || ',"updated_at":' || api.j_ts(v.updated_at) || '}'
$$;

-- What a product shows of its live (not deleted) variants: the variants array and the
-- price range after discounts. A product without live variants shows "0.00" for both
-- prices (the fields are required strings).
-- Join it LATERAL.
create or replace function api.product_variants(store uuid, product_id uuid)
returns table (variants text, min_price numeric, max_price numeric)
language sql stable parallel safe as $$
  select '[' || coalesce(string_agg(api.variant_json(v), ',' order by v.position, v.id), '') || ']',
         coalesce(min(api.discounted_price(v.price, v.discount_type, v.discount_value)), 0),
         coalesce(max(api.discounted_price(v.price, v.discount_type, v.discount_value)), 0)
    from variants v
   where v.store_id = store and v.product_id = product_variants.product_id and v.deleted_at is null
$$;

-- Join it LATERAL.
create or replace function api.translations_json(store uuid, product_id uuid) returns table (translations text)
language sql stable parallel safe as $$
  select '[' || coalesce(string_agg('{"locale":' || api.j_str(t.locale) || ',"name":' || api.j_str(t.name)
                                    || ',"description":' || api.j_str(t.description) || '}',
                                    ',' order by t.locale), '') || ']'
    from product_translations t
   where t.store_id = store and t.product_id = translations_json.product_id
$$;

create or replace function api.product_json(p products, currency text, variants text, min_price numeric, max_price numeric,
                                 translations text)
returns text
language sql stable parallel safe as $$
  select '{"object":"product","id":"' || p.id
      || '","name":' || api.j_str(p.name)
      || ',"slug":' || api.j_str(p.slug)
      || ',"type":"' || p.type
      || '","status":"' || p.status
      || '","currency":"' || currency
      || '","min_price":' || api.j_amount(min_price)
      || ',"max_price":' || api.j_amount(max_price)
      || ',"category_id":' || coalesce('"' || p.category_id || '"', 'null')
      || ',"tags":' || api.j_strings(p.tags)
      || ',"images":' || api.j_strings(p.images)
      || ',"translations":' || translations
      || ',"variants":' || variants
      || ',"created_at":' || api.j_ts(p.created_at)
      || ',"updated_at":' || api.j_ts(p.updated_at) || '}'
$$;

-- One product with everything (writes and events; lists compute the parts per page).
-- plpgsql for the reason given at api.order_json(o).
create or replace function api.product_json(p products) returns text
language plpgsql stable parallel safe as $$
begin
  return (select api.product_json(p, s.currency, v.variants, v.min_price, v.max_price, t.translations)
            from stores s, api.product_variants(p.store_id, p.id) v, api.translations_json(p.store_id, p.id) t
           where s.id = p.store_id);
end $$;

create or replace function api.booking_json(b bookings) returns text
language sql stable parallel safe as $$
  select '{"object":"booking","id":"' || b.id
      || '","status":"' || b.status
      || '","date":"' || to_char(b.booking_date, 'YYYY-MM-DD')
      || '","time":"' || to_char(b.booking_time, 'HH24:MI')
      || '","timezone":' || api.j_str(b.timezone)
      || ',"duration_minutes":' || b.duration_minutes
      || ',"meeting_method":' || api.j_str(b.meeting_method)
      || ',"meeting_link":' || api.j_str(b.meeting_link)
      || ',"order_id":"' || b.order_id
      || '","product_id":"' || b.product_id
      || '","product_name":' || api.j_str(b.product_name)
      || ',"customer":{"id":"' || b.customer_id
      || '","name":' || api.j_str(b.customer_name)
      || ',"email":' || api.j_str(b.customer_email)
      || ',"phone":' || api.j_str(b.customer_phone)
      || '},"created_at":' || api.j_ts(b.created_at) || '}'
$$;

create or replace function api.customer_json(c customers) returns text
language sql stable parallel safe as $$
  select '{"object":"customer","id":"' || c.id
      || '","name":' || api.j_str(c.name)
      || ',"email":' || api.j_str(c.email)
      || ',"phone":' || api.j_str(c.phone)
      || ',"source":"' || c.source
      || '","email_status":"' || c.email_status
      || '","unsubscribed_at":' || api.j_ts(c.unsubscribed_at)
      || ',"tags":' || api.j_strings(c.tags)
      || ',"created_at":' || api.j_ts(c.created_at)
      || ',"updated_at":' || api.j_ts(c.updated_at) || '}'
$$;


------------------------------------------------------------------------------------------
-- Stored documents (sql/010_stored_documents.sql; docs/DECISIONS.md, "Reads: stored
-- documents"). The read endpoints return `doc`; these triggers are its only writers: any
-- insert or update of a resource row renders the row again, in the same statement, with
-- the renderer above. A write that wants the new rendering reads it back (`returning
-- doc`) instead of rendering a second time.
--
-- What a document shows from other tables is covered thus: a change to a variant moves
-- its product's updated_at (api.variant_changed below), which renders the product with
-- the variant's new values; an order's line items, a product's translations and new
-- variants are written only by the seed, which renders its store again afterwards
-- (api.render_documents); a store's currency never changes after it is created.
-- api.stale_documents lists every document that differs from a fresh rendering: the tests
-- check it after every kind of write.

create or replace function api.render_order_doc() returns trigger
language plpgsql as $$
begin
  new.doc := api.order_json(new);
  return new;
end $$;

-- api.variant_changed (below) may bring the document up to date itself, where that is
-- cheaper than rendering: its update's new document is kept. It says so in a setting
-- of its transaction around that one update, so any other update — `doc` set by hand
-- included — is rendered as always.
create or replace function api.render_product_doc() returns trigger
language plpgsql as $$
begin
  if tg_op = 'UPDATE' and new.doc is not null and new.doc is distinct from old.doc
     and current_setting('storeapi.product_doc_by', true) = 'variant_changed' then
    return new;
  end if;
  new.doc := api.product_json(new);
  return new;
end $$;

create or replace function api.render_customer_doc() returns trigger
language plpgsql as $$
begin
  new.doc := api.customer_json(new);
  return new;
end $$;

create or replace function api.render_booking_doc() returns trigger
language plpgsql as $$
begin
  new.doc := api.booking_json(new);
  return new;
end $$;

-- A product's document `doc` (as of `updated_at`) with one variant's rendering replaced and
-- its updated_at moved to `new_updated_at`: what rendering the product again would give
-- when nothing else it shows changed. Null when `doc` does not hold `old_variant` or
-- does not end with its created_at and `updated_at` as expected (a stale document): render
-- it then. The variant's rendering starts with its object and id, and a string inside the
-- document has its quotes escaped, so it occurs once, at the variant's place in
-- "variants"; the variants' array is followed by the product's created_at, the first
-- `],"created_at":"` of the document (a variant's created_at follows its image_url).
-- replace and split_part search and copy bytes; strpos, left, right and length count
-- characters, calling pg_mblen on every character of the UTF-8 document up to the place
-- (api.product_doc_parts in sql/functions/40_writes.sql says what that cost).
create or replace function api.product_doc_with_variant(doc text, updated_at timestamptz, new_updated_at timestamptz,
                                                        old_variant text, new_variant text)
returns text
language plpgsql stable parallel safe as $$
declare
  -- plpgsql, not SQL: a SQL function that uses an argument twice is not inlined when the
  -- argument is an expression (a variant's rendering), and ran through fmgr_sql, planned
  -- on every call; plpgsql evaluates these simple expressions without an executor.
  replaced text := replace(doc, old_variant, new_variant);
  head text := split_part(replaced, '],"created_at":"', 1);
  created_at text := split_part(split_part(replaced, '],"created_at":"', 2), '"', 1);
begin
  if (replaced = doc and split_part(doc, old_variant, 1) = doc)
     or head || '],"created_at":"' || created_at || '","updated_at":' || api.j_ts(updated_at) || '}' <> replaced then
    return null;
  end if;
  return head || '],"created_at":"' || created_at || '","updated_at":' || api.j_ts(new_updated_at) || '}';
end $$;

-- A variant's change is its product's change: the product's document shows the variant
-- (and the price range), so the product's updated_at moves with it — also for a sync
-- client, which finds changed records by updated_at. When the price range and the
-- variants' order and membership stay (a stock change, most often), the document is
-- brought up to date by replacing the variant's rendering in it: a stock write's product
-- was rendered again from all its variants and translations, 13 % of its PostgreSQL time
-- (bench/RESULTS.md, "Where a keyed stock write's PostgreSQL time goes"). Else, and for a stale document, doc = null renders it
-- (api.render_product_doc).
create or replace function api.variant_changed() returns trigger
language plpgsql as $$
declare
  -- set_config assigned, not PERFORMed: see "Calls for their effect" in 40_writes.sql.
  setting text;
begin
  if tg_op = 'UPDATE'
     and (new.store_id, new.product_id, new.price, new.discount_type, new.discount_value, new.position, new.deleted_at)
         is not distinct from
         (old.store_id, old.product_id, old.price, old.discount_type, old.discount_value, old.position, old.deleted_at)
  then
    setting := set_config('storeapi.product_doc_by', 'variant_changed', true);
    update products p
       set updated_at = api.now_ms(),
           doc = api.product_doc_with_variant(p.doc, p.updated_at, api.now_ms(), api.variant_json(old),
                                              api.variant_json(new))
     where store_id = old.store_id and id = old.product_id;
    setting := set_config('storeapi.product_doc_by', '', true);
  else
    update products set updated_at = api.now_ms() where store_id = old.store_id and id = old.product_id;
  end if;
  return null;
end $$;

-- Each of these locks its table (SHARE ROW EXCLUSIVE) until `migrate` commits this file,
-- while the fleet writes. A variant write changes its variant, then (by the trigger) its
-- product: so the variants first, then the products. The other way round, a write that
-- had changed its variant waited on the product's lock held here while this waited on
-- the variant's held by the write, and PostgreSQL ended one of them: a write answered 500
-- during a rolling upgrade.
-- (not on insert: only the seed inserts variants, see above)
create or replace trigger product_changed after update or delete on variants
  for each row execute function api.variant_changed();
create or replace trigger render_doc before insert or update on orders
  for each row execute function api.render_order_doc();
create or replace trigger render_doc before insert or update on products
  for each row execute function api.render_product_doc();
create or replace trigger render_doc before insert or update on customers
  for each row execute function api.render_customer_doc();
create or replace trigger render_doc before insert or update on bookings
  for each row execute function api.render_booking_doc();

-- Every stored document that is not what the renderer makes of its row now (none, unless
-- a write forgot a dependency).
create or replace view api.stale_documents as
  select 'orders' as resource, store_id, id from orders t where doc is distinct from api.order_json(t)
  union all
  select 'products', store_id, id from products t where doc is distinct from api.product_json(t)
  union all
  select 'customers', store_id, id from customers t where doc is distinct from api.customer_json(t)
  union all
  select 'bookings', store_id, id from bookings t where doc is distinct from api.booking_json(t);

-- Renders again every stored document (of store `p_store`; null: of every store) that is
-- stale: after the seed, which writes line items, translations and variants after their
-- rows, and after `migrate` has applied a changed version of this file (its header). The
-- update itself sets nothing: the trigger renders. A table at a time, `batch_size` rows
-- at a time in key order; with `commit_batches` each batch commits (`CALL`ed outside a
-- transaction), so a re-render of a million orders holds each stale row's lock for one
-- batch, never a table lock: a write waits at most for the batch it meets. Run again, it
-- finds only what is still stale.
create or replace procedure api.render_stale_documents(p_store uuid, batch_size int, commit_batches boolean)
language plpgsql as $$
declare
  resource text;
  after_store uuid;
  after_id uuid;
begin
  foreach resource in array array['order', 'product', 'customer', 'booking'] loop
    after_store := null;
    after_id := null;
    loop
      -- The batch's keys, its stale rows rendered, and its last key (none: the table is done).
      execute format(
        'with batch as (select store_id, id from %1$I'
        '                where ($1::uuid is null or store_id = $1)'
        '                  and ($2::uuid is null or (store_id, id) > ($2, $3))'
        '                order by store_id, id limit $4),'
        '     rendered as (update %1$I t set doc = null from batch'
        '                   where (t.store_id, t.id) = (batch.store_id, batch.id)'
        '                     and t.doc is distinct from api.%2$I(t))'
        ' select store_id, id from batch order by store_id desc, id desc limit 1',
        resource || 's', resource || '_json')
        into after_store, after_id
        using p_store, after_store, after_id, batch_size;
      exit when after_id is null;
      if commit_batches then
        commit;
      end if;
    end loop;
  end loop;
end $$;

-- The seed's and the previous release's way in: within the caller's transaction.
create or replace function api.render_documents(p_store uuid) returns void
language plpgsql volatile as $$
begin
  call api.render_stale_documents(p_store, 1000, false);
end $$;
