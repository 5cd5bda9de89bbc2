-- pgbench script: the server's key lookup, word for word auth::kKeyByHash
-- (src/auth/authenticator.cpp), with the hash passed as -D hash=<sha256 hex>.
select k.id, k.store_id, k.name, k.prefix, array_to_string(k.scopes, ','), k.expires_at,
       k.revoked_at is not null, s.name, s.slug, s.url, s.currency, s.locale, s.plan,
       coalesce(s.rate_limit_rpm, (api.plan_limits(s.plan)).rpm)
  from api_keys k join stores s on s.id = k.store_id
 where k.key_hash = :hash;
