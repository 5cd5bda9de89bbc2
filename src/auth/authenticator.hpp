#pragma once
// Authentication, plan check and rate limit for one /v1 request, in docs/DESIGN.md's order:
// key present (401 missing_api_key) → key well-formed and known (401 invalid_api_key;
// malformed keys, and keys whose hash the node's set does not hold, never reach the
// database) → not revoked / not expired → store plan
// includes the API (403 plan_required) → rate limit (429). A warm key costs one SHA-256,
// one hash-map lookup and one compare-and-swap.
#include <array>
#include <optional>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "auth/key_cache.hpp"
#include "auth/known_keys.hpp"
#include "auth/rate_limiter.hpp"
#include "auth/fleet_batch.hpp"
#include "common/uuid.hpp"
#include "common/time.hpp"
#include "db/pool.hpp"
#include "db/result.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"
#include "auth/scopes.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

enum class AuthStatus : std::uint8_t {
  ok,
  missing_api_key,
  invalid_api_key,
  revoked_api_key,
  expired_api_key,
  plan_required,
  rate_limited,
  unavailable,  // the key could not be looked up: the database is unreachable
};

// Who is calling. Copied out of the cache (the store body shared with it), so it stays
// valid across later awaits.
struct Caller {
  Uuid store_id;
  Uuid key_id;
  std::array<char, 36> store_id_text{};  // canonical text, for SQL parameters
  std::array<char, 36> key_id_text{};
  ScopeSet scopes;
  RateDecision rate{};
  // Where the store's data lives (docs/DECISIONS.md, "Pods"): its pod's name and the
  // placement's epoch, which every move raises. A fenced write's retry updates them
  // (Authenticator::relocate).
  std::string pod;
  std::int64_t placement_epoch = 0;
  // Fleet mode: the store's last write position under this placement epoch as Redis had
  // it when this request was admitted (api/routing/read_router.hpp); nullopt when unknown
  // (none recorded, Redis down).
  std::optional<std::uint64_t> last_write_lsn;
  std::shared_ptr<const std::string> store_body;

  std::string_view store() const noexcept { return {store_id_text.data(), store_id_text.size()}; }
  std::string_view key() const noexcept { return {key_id_text.data(), key_id_text.size()}; }
};

struct AuthResult {
  AuthStatus status;
  Caller caller;  // meaningful when status is ok or rate_limited (rate is set)
  // The key's database lookup (db::Unit::database_time); zero when the cache answered.
  std::chrono::steady_clock::duration lookup_time{};
};

// The statement the authenticator needs prepared on every pooled connection: the key by
// its hash ($1, hex), with its store and the store's placement (pod, epoch). Its columns,
// in the order its SQL selects them:
#define STOREAPI_KEY_BY_HASH_COLUMNS(X)                                                        \
  X(id, uuid) X(store_id, uuid) X(key_name, text) X(key_prefix, text) X(scopes, text)           \
  X(expires_at_us, int8) /* epoch microseconds, null: never */ X(revoked, boolean)              \
  X(store_name, text) X(slug, text) X(url, text) X(currency, text) X(locale, text) X(plan, text) \
  X(rate_per_minute, int4) X(pod, text) X(placement_epoch, int8)
STOREAPI_DB_ROW(KeyByHash, STOREAPI_KEY_BY_HASH_COLUMNS);
extern const db::Statement kKeyByHash;

// A key row's expiry (column kExpiresAtColumn of kKeyByHash's result), nullopt for a key
// that never expires. Whatever the column holds, the answer never makes an expiring key
// live forever.
inline constexpr int kExpiresAtColumn = KeyByHash::Index::expires_at_us;
std::optional<timefmt::Micros> key_expiry(const db::Result& r, int row);

class Authenticator {
 public:
  // With `fleet` (fleet mode) the rate limit is the fleet's, kept in Redis; the node's
  // own buckets serve only while Redis cannot answer. With `known`, a key whose hash it
  // certainly does not hold is refused without a query.
  Authenticator(db::Pool& pool, KeyCache& cache, RateLimiter& limiter, FleetBatch* fleet = nullptr,
                const KnownKeys* known = nullptr);

  // `authorization`: the request's Authorization header, nullopt when it has none. Read
  // before the first suspension only, so the view need not outlive the call.
  runtime::task<AuthResult> authenticate(std::optional<std::string_view> authorization);

  // Looks the caller's key up again in the directory, past this core's cache, and updates
  // the caller's placement: for a write its pod refused (fenced), whose store may have
  // moved. ok when it did; else why not, as authenticate() would say it (unavailable: the
  // key could not be looked up; invalid_api_key also for a key now of another store),
  // the caller's placement unchanged. Never rate_limited: the request was admitted once.
  runtime::task<AuthStatus> relocate(std::optional<std::string_view> authorization, Caller& caller);

 private:
  // A database lookup's result: the cached key (nullptr when unknown, or when the
  // database could not answer: `unavailable`) and the lookup's time.
  struct Lookup {
    const KeyRecord* key = nullptr;
    bool unavailable = false;
    std::chrono::steady_clock::duration time{};
  };
  // Fills the cache from the database (unless an invalidation arrived meanwhile, see
  // KeyCache::generation).
  runtime::task<Lookup> load(const crypto::Sha256& hash);

  db::Pool& pool_;
  KeyCache& cache_;
  RateLimiter& limiter_;
  FleetBatch* fleet_;
  const KnownKeys* known_;
  // storeapi_key_cache_lookups_total by result.
  metrics::Counter& cache_hits_;
  metrics::Counter& cache_misses_;
  metrics::Counter& cache_known_unknown_;
  metrics::Counter& cache_absent_;
};

}  // namespace storeapi::auth
