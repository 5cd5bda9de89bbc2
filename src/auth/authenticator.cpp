#include "auth/authenticator.hpp"

#include <charconv>

#include "auth/api_key.hpp"
#include "auth/store_body.hpp"
#include "metrics/registry.hpp"

namespace storeapi::auth {
namespace {

std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ScopeSet parse_scopes(std::string_view list) {
  ScopeSet set;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    if (auto scope = parse_scope(list.substr(0, comma))) set.add(*scope);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return set;
}

}  // namespace

// Epoch microseconds computed by PostgreSQL: an integer, whatever the session's TimeZone
// and DateStyle (a pooler may drop the ones the connection asked for). Text that is not
// an integer cannot come from that expression; it counts as expired at the epoch rather
// than as "never expires", so that no reading of the column fails open.
std::optional<timefmt::Micros> key_expiry(const db::Result& r, int row) {
  if (r.is_null(row, kExpiresAtColumn)) return std::nullopt;
  const std::string_view text = r.text(row, kExpiresAtColumn);
  timefmt::Micros micros = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), micros);
  if (error != std::errc() || end != text.data() + text.size()) return timefmt::Micros{0};
  return micros;
}

namespace {
constexpr db::Column kKeyByHashParams[] = {{"key_hash", db::Type::text}};
}  // namespace

const db::Statement kKeyByHash{
    "auth_key_by_hash",
    "select k.id, k.store_id, k.name as key_name, k.prefix as key_prefix, array_to_string(k.scopes, ',') as scopes,"
    "       (extract(epoch from k.expires_at) * 1000000)::int8 as expires_at_us,"
    "       k.revoked_at is not null as revoked, s.name as store_name, s.slug, s.url, s.currency, s.locale, s.plan,"
    "       coalesce(s.rate_limit_rpm, (api.plan_limits(s.plan)).rpm) as rate_per_minute, s.pod, s.placement_epoch"
    "  from api_keys k join stores s on s.id = k.store_id"
    " where k.key_hash = $1",
    kKeyByHashParams, KeyByHash::columns};

namespace {

metrics::Counter& cache_lookups(std::string_view result) {
  return metrics::Registry::process()
      .counter("storeapi_key_cache_lookups_total",
               "API key lookups in a core's cache: hit, miss (asked the database), known_unknown (negative cache) "
               "or absent (not in the node's set of key hashes).",
               {"result"})
      .with({result});
}

// The key's own verdict, before the rate limit: revoked, expired, its store's plan without
// the API, or ok.
AuthStatus key_status(const KeyRecord& key) {
  if (key.revoked) return AuthStatus::revoked_api_key;
  if (key.expires_at && *key.expires_at <= timefmt::now_micros()) return AuthStatus::expired_api_key;
  if (!key.plan_allows_api) return AuthStatus::plan_required;
  return AuthStatus::ok;
}

}  // namespace

Authenticator::Authenticator(db::Pool& pool, KeyCache& cache, RateLimiter& limiter, FleetBatch* fleet,
                             const KnownKeys* known)
    : pool_(pool),
      cache_(cache),
      limiter_(limiter),
      fleet_(fleet),
      known_(known),
      cache_hits_(cache_lookups("hit")),
      cache_misses_(cache_lookups("miss")),
      cache_known_unknown_(cache_lookups("known_unknown")),
      cache_absent_(cache_lookups("absent")) {}

runtime::task<Authenticator::Lookup> Authenticator::load(const crypto::Sha256& hash) {
  std::string hex = crypto::hex(hash);
  const std::uint64_t generation = cache_.generation();
  db::Unit unit;
  unit.add(kKeyByHash, {std::string_view(hex)});
  const db::Outcome outcome = co_await pool_.run(unit);
  Lookup lookup{.time = unit.database_time()};
  if (outcome != db::Outcome::done || !unit.result(0).ok()) {
    lookup.unavailable = true;
    co_return lookup;
  }
  const db::Result& r = unit.result(0);
  auto now = KeyCache::Clock::now();
  if (r.rows() == 0) {
    cache_.insert_unknown(hash, now, generation);
    co_return lookup;
  }
  const auto row = r.row<KeyByHash>(0);
  KeyRecord record;
  record.key_id = Uuid::parse(row.id()).value_or(Uuid{});
  record.store_id = Uuid::parse(row.store_id()).value_or(Uuid{});
  record.scopes = parse_scopes(row.scopes());
  record.expires_at = key_expiry(r, 0);
  record.revoked = row.revoked();
  record.plan_allows_api = row.plan() != "free";
  record.rate_per_minute = row.rate_per_minute();
  record.pod = row.pod();
  record.placement_epoch = row.placement_epoch();
  record.store_body = std::make_shared<const std::string>(render_store_body({
      .store_id = row.store_id(),
      .name = row.store_name(),
      .slug = row.slug(),
      .url = row.url(),
      .currency = row.currency(),
      .locale = row.locale(),
      .plan = row.plan(),
      .key_id = row.id(),
      .key_name = row.key_name(),
      .key_prefix = row.key_prefix(),
      .scopes = record.scopes,
      .expires_at = record.expires_at,
  }));
  record.bucket = limiter_.bucket(record.store_id);
  record.rate_limited = &metrics::Registry::process()
                             .counter("storeapi_rate_limited_requests_total",
                                      "Requests answered 429 rate_limited, by the store's plan.", {"plan"})
                             .with({row.plan()});
  lookup.key = &cache_.insert(hash, std::move(record), now, generation);
  co_return lookup;
}

runtime::task<AuthResult> Authenticator::authenticate(std::optional<std::string_view> authorization) {
  AuthResult result{AuthStatus::ok, {}};
  std::string_view token;
  if (bearer_token(authorization.value_or(std::string_view{}), authorization.has_value(), token) ==
      BearerStatus::missing) {
    result.status = AuthStatus::missing_api_key;
    co_return result;
  }
  if (!is_well_formed_key(token)) {
    result.status = AuthStatus::invalid_api_key;
    co_return result;
  }
  crypto::Sha256 hash = crypto::sha256(token);
  auto now = KeyCache::Clock::now();
  const KeyRecord* key = cache_.find(hash, now);
  if (key) cache_hits_.inc();
  if (!key) {
    if (known_ && !known_->may_exist(hash)) {
      cache_absent_.inc();
      result.status = AuthStatus::invalid_api_key;
      co_return result;
    }
    if (cache_.known_unknown(hash, now)) {
      cache_known_unknown_.inc();
      result.status = AuthStatus::invalid_api_key;
      co_return result;
    }
    cache_misses_.inc();
    const Lookup lookup = co_await load(hash);
    result.lookup_time = lookup.time;
    key = lookup.key;
    if (!key) {
      result.status = lookup.unavailable ? AuthStatus::unavailable : AuthStatus::invalid_api_key;
      co_return result;
    }
  }
  // `key` is valid until the next suspension: the shared rate limit copies what it needs.
  result.status = key_status(*key);
  if (result.status == AuthStatus::ok) {
    result.caller.store_id = key->store_id;
    result.caller.key_id = key->key_id;
    key->store_id.write(result.caller.store_id_text.data());
    key->key_id.write(result.caller.key_id_text.data());
    result.caller.scopes = key->scopes;
    result.caller.store_body = key->store_body;
    result.caller.pod = key->pod;
    result.caller.placement_epoch = key->placement_epoch;
    // Process-wide, so it outlives the cache entry across the fleet limiter's suspension.
    metrics::Counter* rate_limited = key->rate_limited;
    if (fleet_) {
      std::shared_ptr<RateBucket> own_bucket = key->bucket;
      const std::int64_t per_minute = key->rate_per_minute;
      std::optional<FleetAdmission> fleet =
          co_await fleet_->admit(result.caller.store(), result.caller.placement_epoch, per_minute);
      // Redis unreachable (docs/DECISIONS.md "Fleet"): the node's own bucket decides.
      result.caller.rate = fleet ? fleet->rate : own_bucket->acquire(monotonic_ns(), per_minute);
      if (fleet) result.caller.last_write_lsn = fleet->last_write_lsn;
    } else {
      result.caller.rate = key->bucket->acquire(monotonic_ns(), key->rate_per_minute);
    }
    if (!result.caller.rate.allowed) {
      result.status = AuthStatus::rate_limited;
      if (rate_limited) rate_limited->inc();
    }
  }
  co_return result;
}

runtime::task<AuthStatus> Authenticator::relocate(std::optional<std::string_view> authorization, Caller& caller) {
  std::string_view token;
  if (bearer_token(authorization.value_or(std::string_view{}), authorization.has_value(), token) ==
      BearerStatus::missing)
    co_return AuthStatus::missing_api_key;
  if (!is_well_formed_key(token)) co_return AuthStatus::invalid_api_key;
  const crypto::Sha256 hash = crypto::sha256(token);
  const Lookup lookup = co_await load(hash);
  const KeyRecord* key = lookup.key;
  if (!key) co_return lookup.unavailable ? AuthStatus::unavailable : AuthStatus::invalid_api_key;
  if (key->store_id != caller.store_id) co_return AuthStatus::invalid_api_key;
  // The whole check again, as for a new request: the key may have expired, been revoked or
  // lost its plan's API access while the write waited.
  if (const AuthStatus status = key_status(*key); status != AuthStatus::ok) co_return status;
  // A position learned under another placement is of another pod's WAL.
  if (key->placement_epoch != caller.placement_epoch) caller.last_write_lsn.reset();
  caller.pod = key->pod;
  caller.placement_epoch = key->placement_epoch;
  co_return AuthStatus::ok;
}

}  // namespace storeapi::auth
