-- Repeatable (src/admin/migrations/migrations.cpp): applied again whenever this text changes; first
-- defined by sql/008_writes.sql. Change a function here, not in a new migration; a
-- changed signature needs its old one dropped in a numbered migration first.
--
-- The write endpoints as SQL functions (docs/DECISIONS.md, "Writes"). A write locks the
-- row, checks the state, changes the row and its updated_at, and writes the stock history
-- row, the event and the customer notification; it returns its answer (api.write_result).
-- A refusal (404, 409, 422, or a 400 that depends on the stored state) writes nothing.
-- The server runs each inside api.complete_write, which takes and completes the
-- Idempotency-Key in the same statement (sql/functions/30_idempotency.sql).

-- A refusal with the status of its code (src/api/errors.cpp holds the same table for the
-- codes the server decides itself).
create or replace function api.rejection(code text, param text default null) returns api.write_result
language sql immutable parallel safe as $$
  select (case code
            when 'resource_not_found' then 404
            when 'parameter_invalid' then 400
            when 'discount_exceeds_price' then 422
            else 409 end,
          json_build_object('code', code, 'param', param)::text)::api.write_result
$$;

-- docs/DESIGN.md §2's fulfillment transitions; anything else is 409 invalid_state_transition.
create or replace function api.fulfillment_allows(from_status text, to_status text) returns boolean
language sql immutable parallel safe as $$
  select case from_status
    when 'pending' then to_status in ('confirmed', 'processing', 'ready', 'shipped', 'fulfilled', 'canceled')
    when 'confirmed' then to_status in ('processing', 'ready', 'shipped', 'fulfilled', 'canceled')
    when 'processing' then to_status in ('ready', 'shipped', 'fulfilled', 'canceled')
    when 'ready' then to_status in ('shipped', 'delivered', 'fulfilled', 'canceled')
    when 'shipped' then to_status in ('delivered', 'returned')
    when 'delivered' then to_status in ('fulfilled', 'returned')
    when 'fulfilled' then to_status = 'returned'
    else false end
$$;


------------------------------------------------------------------------------------------
-- Calls for their effect: a function whose result is not needed but that returns one (an
-- event's id, a setting's old value) is called by assigning its result to a variable, not
-- by PERFORM. PERFORM runs its call as a query (SPI: a portal and an executor start-up
-- each time); an assignment of a call without FROM is a plpgsql simple expression,
-- evaluated without the executor, whose start-up was a large share of a keyed stock
-- write's PostgreSQL time (bench/RESULTS.md, "Fewer statements per keyed stock write").
-- A void function (api.notify_customer, an advisory lock) likewise, as `v_done := f(...)
-- is null`: a variable cannot hold void, a boolean can hold that test of it (false: void
-- is a value). PERFORM stays where no assignment can replace it: a query with FROM (a
-- lookup, a row lock), which is a query either way.

------------------------------------------------------------------------------------------
-- Outbox rows

-- Helpers that run a query are plpgsql, not SQL: a SQL function that cannot be inlined
-- (a FROM clause, or DML) is planned again on every call, which measured about 1-3 ms per
-- call here, while plpgsql keeps its statements' plans for the connection's lifetime.

-- The top-level fields of a resource whose rendering changed, with their old values, as
-- the API rendered them (updated_at included): a JSON object, in the document's field
-- order, each old value the old document's bytes. json_each, not jsonb: it only splits
-- the text (no tree built, nothing reordered), and comparing the two renderings' bytes is
-- comparing their values — one renderer wrote both. Faster than a jsonb version
-- (bench/RESULTS.md, "Writes: the same bytes, built once").
create or replace function api.previous_attributes(old_json text, new_json text) returns text
language plpgsql immutable parallel safe as $$
begin
  return (select '{' || coalesce(string_agg(to_json(o.key)::text || ':' || o.value::text, ',' order by o.ordinality), '')
                 || '}'
            from json_each(old_json::json) with ordinality o
            left join json_each(new_json::json) n on n.key = o.key
           where n.value::text is distinct from o.value::text);
end $$;

-- A product document's parts, for api.product_previous_attributes: the head up to
-- min_price, min_price's and max_price's values, the fields between them and the variants
-- (category_id ... translations, keys included), the variants' value, created_at's and
-- updated_at's values. api.product_json writes the fields in this order and escapes every
-- `"` inside a string (`\"`), so each `,"<key>":` below occurs once, as the product's own
-- key, and `],"created_at":"` first where the variants' array ends (a variant's
-- created_at follows its image_url, never a `]`). Cut with split_part, which searches and
-- copies bytes: strpos, substr, left and length count characters, calling pg_mblen on
-- every character of a UTF-8 text up to the place (12 % of the backends' samples in a
-- stock write when this function and api.product_doc_with_variant cut the documents that
-- way). Null when the document is not of that shape.
create or replace function api.product_doc_parts(doc text) returns text[]
language plpgsql immutable parallel safe as $$
declare
  head text := split_part(doc, ',"min_price":', 1);
  rest text := split_part(doc, ',"min_price":', 2);
  min_price text := split_part(rest, ',"max_price":', 1);
  max_price text;
  middle text;
  variants text;
  created_at text;
  updated_at text;
begin
  rest := split_part(rest, ',"max_price":', 2);
  max_price := split_part(rest, ',"category_id":', 1);
  rest := split_part(rest, ',"category_id":', 2);
  middle := split_part(rest, ',"variants":', 1);
  rest := split_part(rest, ',"variants":', 2);
  variants := split_part(rest, '],"created_at":"', 1) || ']';
  rest := split_part(rest, '],"created_at":"', 2);
  created_at := split_part(rest, '"', 1);
  updated_at := split_part(rest, '"', 5);
  -- Put back together, the parts are the document: then each was where it was looked for.
  -- A price is one value (a decimal string or null, never a comma): a field rendered
  -- between the prices (a later release's document beside this one's) is another shape.
  if strpos(min_price, ',') > 0 or strpos(max_price, ',') > 0
     or head || ',"min_price":' || min_price || ',"max_price":' || max_price || ',"category_id":' || middle
     || ',"variants":' || variants || ',"created_at":"' || created_at || '","updated_at":"' || updated_at || '"}'
     is distinct from doc then
    return null;
  end if;
  return array[head, min_price, max_price, middle, variants, created_at, updated_at];
end $$;

-- api.previous_attributes(old_json, new_json) of two renderings of one product after a
-- variant's change, which moves only min_price, max_price, the variants and updated_at:
-- those four compared by their bytes, cut out of the documents (api.product_doc_parts)
-- instead of parsing 2 x 2-4 KB of JSON. Anything else changed, or a document of another
-- shape: the general function.
create or replace function api.product_previous_attributes(old_json text, new_json text) returns text
language plpgsql immutable parallel safe as $$
declare
  o text[] := api.product_doc_parts(old_json);
  n text[] := api.product_doc_parts(new_json);
begin
  if o is null or n is null or o[1] <> n[1] or o[4] <> n[4] or o[6] <> n[6] then
    return api.previous_attributes(old_json, new_json);
  end if;
  return '{' || concat_ws(',', case when o[2] <> n[2] then '"min_price":' || o[2] end,
                               case when o[3] <> n[3] then '"max_price":' || o[3] end,
                               case when o[5] <> n[5] then '"variants":' || o[5] end,
                               case when o[7] <> n[7] then '"updated_at":"' || o[7] || '"' end) || '}';
end $$;

-- An e-mail to a customer; the row carries the store's name and URL too, so it holds all
-- the template reads as of the change. A snapshot without a usable address cannot be
-- mailed: nothing is queued and the write goes on.
create or replace function api.notify_customer(p_store uuid, p_template text, p_recipient text, p_data jsonb) returns void
language plpgsql volatile as $$
begin
  if p_recipient like '%_@_%' then
    perform api.queue_notification(s.id, 'customer', p_template, p_recipient,
                                   p_data || jsonb_build_object('store_name', s.name, 'store_url', s.url))
       from stores s where s.id = p_store;
  end if;
end $$;

-- The product's stored document, as the API renders it (a variant's change renders it
-- again at once, api.variant_changed in sql/functions/10_render.sql). plpgsql, not SQL: a
-- SQL function with a FROM is not inlined, and called from plpgsql it is parsed, planned
-- and set up again on every call (a profile of the stock write found a third of the
-- backend's CPU under fmgr_sql, bench/RESULTS.md); plpgsql keeps its plan per connection.
create or replace function api.stored_product_json(p_store uuid, p_product uuid) returns text
language plpgsql stable as $$
begin
  return (select p.doc from products p where p.store_id = p_store and p.id = p_product);
end $$;

------------------------------------------------------------------------------------------
-- The writes

-- POST /v1/orders/{id}/fulfillment. Tracking fields left null keep their value.
create or replace function api.fulfill_order(p_store uuid, p_order uuid, p_status text, p_tracking_number text,
                                             p_tracking_carrier text)
returns api.write_result
language plpgsql volatile as $$
declare
  o orders;
  n orders;
  v_old text;
  v_new text;
  v_event uuid;
  v_done boolean;
begin
  select * into o from orders where store_id = p_store and id = p_order for no key update;
  if not found then
    return api.rejection('resource_not_found');
  end if;
  if not api.fulfillment_allows(o.fulfillment_status, p_status) then
    return api.rejection('invalid_state_transition');
  end if;

  v_old := o.doc;
  update orders
     set fulfillment_status = p_status,
         tracking_number = coalesce(p_tracking_number, tracking_number),
         tracking_carrier = coalesce(p_tracking_carrier, tracking_carrier),
         updated_at = api.now_ms()
   where store_id = p_store and id = p_order
  returning * into n;
  v_new := n.doc;

  v_event := api.emit_event(p_store, 'order.fulfillment_updated', v_new, api.previous_attributes(v_old, v_new));
  v_done := api.notify_customer(p_store, 'order_fulfillment_updated', n.customer_email,
    jsonb_build_object('order_id', n.id,
                       'order_number', n.order_number,
                       'fulfillment_status', n.fulfillment_status,
                       'previous_fulfillment_status', o.fulfillment_status,
                       'tracking_number', n.tracking_number,
                       'tracking_carrier', n.tracking_carrier,
                       'customer_name', n.customer_name)) is null;
  return (200, v_new)::api.write_result;
end $$;

-- POST /v1/bookings/{id}/accept (p_action 'accept': only from pending or initiated) and
-- /cancel (p_action 'cancel': from any state but canceled).
create or replace function api.change_booking(p_store uuid, p_booking uuid, p_action text)
returns api.write_result
language plpgsql volatile as $$
declare
  b bookings;
  n bookings;
  v_status text := case p_action when 'accept' then 'accepted' when 'cancel' then 'canceled' end;
  v_old text;
  v_new text;
  v_event uuid;
  v_done boolean;
begin
  if v_status is null then
    raise exception 'api.change_booking: unknown action %', p_action;
  end if;
  select * into b from bookings where store_id = p_store and id = p_booking for no key update;
  if not found then
    return api.rejection('resource_not_found');
  end if;
  if (p_action = 'accept' and b.status not in ('pending', 'initiated')) or b.status = 'canceled' then
    return api.rejection('invalid_state_transition');
  end if;

  v_old := b.doc;
  update bookings set status = v_status, updated_at = api.now_ms()
   where store_id = p_store and id = p_booking
  returning * into n;
  v_new := n.doc;

  v_event := api.emit_event(p_store, 'booking.' || v_status, v_new, api.previous_attributes(v_old, v_new));
  v_done := api.notify_customer(p_store, 'booking_' || v_status, n.customer_email,
    jsonb_build_object('booking_id', n.id,
                       'booking_date', to_char(n.booking_date, 'YYYY-MM-DD'),
                       'booking_time', to_char(n.booking_time, 'HH24:MI'),
                       'timezone', n.timezone,
                       'duration_minutes', n.duration_minutes,
                       'meeting_method', n.meeting_method,
                       'meeting_link', n.meeting_link,
                       'product_name', n.product_name,
                       'customer_name', n.customer_name)) is null;
  return (200, v_new)::api.write_result;
end $$;

-- The live variant a variant write works on, locked after its live product (every
-- variant write of a product moves the product's updated_at, so they queue on the
-- product row and see each other's results). All fields null when either is missing or
-- deleted. One statement (an executor start-up fewer than a query per row): a locking
-- clause locks its tables' rows in the order they are named, the product first, and a row
-- changed meanwhile is locked in its newest version and the join checked again on it.
create or replace function api.lock_variant(p_store uuid, p_product uuid, p_variant uuid) returns variants
language plpgsql volatile as $$
declare
  v variants;
begin
  select lv.* into v
    from products p, variants lv
   where p.store_id = p_store and p.id = p_product and p.deleted_at is null
     and lv.store_id = p_store and lv.id = p_variant and lv.product_id = p.id and lv.deleted_at is null
     for no key update of p, lv;
  return v;
end $$;

-- After a variant changed (which moved the product's updated_at and rendered its
-- document, api.variant_changed): product.updated fires with the whole product, its
-- document read by the statement that inserts the event (api.emit_event's row, one
-- executor start-up instead of a read and an insert). Returns the event's id.
create or replace function api.emit_product_updated(p_store uuid, p_product uuid, p_old_json text) returns uuid
language plpgsql volatile as $$
declare
  v_id uuid := gen_random_uuid();
  v_created_at timestamptz := api.now_ms();
begin
  insert into events (store_id, id, type, payload, created_at, trace_id)
  select p_store, v_id, 'product.updated',
         api.event_payload(v_id, 'product.updated', v_created_at, p_store, p.doc,
                           api.product_previous_attributes(p_old_json, p.doc)),
         v_created_at, api.current_trace_id()
    from products p
   where p.store_id = p_store and p.id = p_product;
  return v_id;
end $$;

-- api.emit_product_updated; returns the product's new rendering.
create or replace function api.product_changed(p_store uuid, p_product uuid, p_old_json text) returns text
language plpgsql volatile as $$
declare
  v_event uuid;
begin
  v_event := api.emit_product_updated(p_store, p_product, p_old_json);
  return api.stored_product_json(p_store, p_product);
end $$;

-- PATCH /v1/products/{id}/variants/{variant_id}. Null p_price / p_discount_value: not
-- sent; p_discount_type applies only when p_discount_type_sent (null then removes the
-- discount and zeroes its value). The server has checked formats and that a sent price
-- is above zero; the rules that depend on the stored variant are here. A request that
-- changes nothing returns the product as it is and fires nothing.
create or replace function api.update_variant(p_store uuid, p_product uuid, p_variant uuid, p_price numeric,
                                              p_discount_type_sent boolean, p_discount_type text,
                                              p_discount_value numeric)
returns api.write_result
language plpgsql volatile as $$
declare
  v variants;
  v_price numeric;
  v_type text;
  v_value numeric;
  v_old text;
begin
  v := api.lock_variant(p_store, p_product, p_variant);
  if v.id is null then
    return api.rejection('resource_not_found');
  end if;

  v_price := coalesce(p_price, v.price);
  v_type := case when p_discount_type_sent then p_discount_type else v.discount_type end;
  v_value := coalesce(p_discount_value,
                      case when p_discount_type_sent and p_discount_type is null then 0 else v.discount_value end);
  -- A discount needs a value above zero, and a value needs a discount.
  if (v_type is null) <> (v_value = 0) then
    return api.rejection('parameter_invalid', 'discount_value');
  end if;
  if v_type is not null and api.discounted_price(v_price, v_type, v_value) <= 0 then
    return api.rejection('discount_exceeds_price', 'discount_value');
  end if;

  v_old := api.stored_product_json(p_store, p_product);
  if (v_price, v_type, v_value) is not distinct from (v.price, v.discount_type, v.discount_value) then
    return (200, v_old)::api.write_result;
  end if;
  update variants set price = v_price, discount_type = v_type, discount_value = v_value, updated_at = api.now_ms()
   where store_id = p_store and id = p_variant;
  return (200, api.product_changed(p_store, p_product, v_old))::api.write_result;
end $$;

-- POST /v1/products/{id}/variants/{variant_id}/stock. mode 'set' (p_quantity >= 0,
-- starts tracking an untracked variant) or 'adjust' (p_quantity <> 0; refused on an
-- untracked variant, or when stock would go below zero). Every accepted request is a
-- stock_movements row, a `set` to the current value included; only a real change moves
-- updated_at and fires product.updated.
create or replace function api.change_stock(p_store uuid, p_product uuid, p_variant uuid, p_mode text,
                                            p_quantity integer, p_note text, p_api_key uuid)
returns api.write_result
language plpgsql volatile as $$
declare
  v variants;
  v_after bigint;
  v_json text;
  v_old text;
  v_event uuid;
begin
  v := api.lock_variant(p_store, p_product, p_variant);
  if v.id is null then
    return api.rejection('resource_not_found');
  end if;

  if p_mode = 'adjust' then
    if v.stock is null then
      return api.rejection('stock_not_tracked');
    end if;
    v_after := v.stock::bigint + p_quantity;
    if v_after < 0 then
      return api.rejection('insufficient_stock', 'quantity');
    end if;
    if v_after > 2147483647 then
      return api.rejection('parameter_invalid', 'quantity');
    end if;
  else
    v_after := p_quantity;
  end if;

  -- One statement for the history row and the variant's change (each statement of a
  -- plpgsql function is an executor start-up of its own). The history row is written
  -- whatever the update does; the update runs only for a real change. Its RETURNING
  -- gives the variant's new rendering and the product's document as it was: the
  -- statement's snapshot, and api.variant_changed moves the product after the statement.
  with movement as (
    insert into stock_movements (store_id, variant_id, product_id, mode, quantity, delta, before, after, note,
                                 source, api_key_id)
    values (p_store, p_variant, p_product, p_mode, p_quantity, v_after - coalesce(v.stock, 0), v.stock, v_after,
            p_note, 'api', p_api_key)
  )
  update variants set stock = v_after, updated_at = api.now_ms()
   where store_id = p_store and id = p_variant and v.stock is distinct from v_after
  returning api.variant_json(variants), (select p.doc from products p where p.store_id = p_store and p.id = p_product)
       into v_json, v_old;
  if not found then
    return (200, api.variant_json(v))::api.write_result;
  end if;
  v_event := api.emit_product_updated(p_store, p_product, v_old);
  return (200, v_json)::api.write_result;
end $$;
