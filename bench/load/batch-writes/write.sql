-- One keyed stock adjust as the server sends it (STOREAPI_KEYED_WRITE in
-- src/api/writes/write_statements.cpp), a fresh key, on one of the chosen variants.
\set n random(1, :variants)
select product_id as product, variant_id as variant from batch_variants where n = :n \gset
select a.outcome, a.status, a.body, e.code as error_code, e.param as error_param, e.message as error_message
  from (select gen_random_uuid()::text as k) key,
  lateral api.claim_idempotency_key(:store::uuid, key.k, 'fingerprint') c,
  lateral api.complete_write(:store::uuid, key.k, 'fingerprint', c,
    case when c.outcome <> 'run' then null when api.set_trace_id(null)
         then api.change_stock(:store::uuid, :product::uuid, :variant::uuid, 'adjust', 1, null, null) end) a
  left join lateral (select * from api.error_fields(a.body) where a.status >= 400 offset 0) e on true;
