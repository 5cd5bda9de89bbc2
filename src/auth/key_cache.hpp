#pragma once
// Per-core cache from the SHA-256 of an API key to what authenticating it needs, so a warm
// request authenticates without touching the database. Entries are dropped by
// invalidations (LISTEN/NOTIFY: key revoked or created, store plan or rate changed) and,
// as a safety net, after a TTL. Unknown hashes are remembered briefly (negative cache) so
// that repeating a bad key does not repeat its query. Both maps are bounded and, when
// full, drop their least recently used entry (docs/SCALING.md sizes them).
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "auth/lru_map.hpp"
#include "auth/rate_limiter.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"
#include "common/uuid.hpp"
#include "auth/scopes.hpp"
#include "metrics/series.hpp"

namespace storeapi::auth {

struct KeyRecord {
  Uuid key_id;
  Uuid store_id;
  ScopeSet scopes;
  std::optional<timefmt::Micros> expires_at;
  bool revoked = false;
  bool plan_allows_api = false;
  std::int64_t rate_per_minute = 0;
  // The store's pod and placement epoch (auth::Caller): dropped with the store's keys on
  // the `store:<id>` invalidation a move announces.
  std::string pod;
  std::int64_t placement_epoch = 0;
  // The whole GET /v1/store answer for this key, rendered once; shared with the requests
  // that still use it when the entry is invalidated.
  std::shared_ptr<const std::string> store_body;
  std::shared_ptr<RateBucket> bucket;
  metrics::Counter* rate_limited = nullptr;  // storeapi_rate_limited_requests_total of the store's plan
};

struct KeyCacheOptions {
  std::chrono::milliseconds ttl{60'000};
  std::chrono::milliseconds negative_ttl{5'000};
  std::size_t max_entries = 100'000;  // STOREAPI_KEY_CACHE_SIZE
  std::size_t max_negative = 10'000;
};

class KeyCache {
 public:
  using Clock = std::chrono::steady_clock;
  using Hash = crypto::Sha256;

  explicit KeyCache(KeyCacheOptions options = {});

  // The cached record, or nullptr (also when it outlived the TTL).
  const KeyRecord* find(const Hash& hash, Clock::time_point now);
  bool known_unknown(const Hash& hash, Clock::time_point now);

  // Counts invalidations. A lookup notes it before asking the database and passes it to
  // insert: if an invalidation arrived meanwhile, the answer may predate the change it
  // announced, so it serves the request that asked but is not kept.
  std::uint64_t generation() const noexcept { return generation_; }

  // The record, valid until the caller next suspends; cached unless invalidated since
  // `looked_up_at` (a generation()).
  const KeyRecord& insert(const Hash& hash, KeyRecord record, Clock::time_point now, std::uint64_t looked_up_at);
  void insert_unknown(const Hash& hash, Clock::time_point now, std::uint64_t looked_up_at);

  // Invalidation payloads: "key:<sha256 hex>", "store:<uuid>", or "*" (everything, e.g.
  // after the notification connection was lost and messages may have been missed).
  void invalidate(std::string_view payload);

  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct HashOfHash {
    std::size_t operator()(const Hash& h) const noexcept;
  };
  struct Entry {
    KeyRecord record;
    Clock::time_point expires;
  };
  KeyCacheOptions options_;
  LruMap<Hash, Entry, HashOfHash> entries_;
  LruMap<Hash, Clock::time_point, HashOfHash> unknown_;
  std::uint64_t generation_ = 0;
  metrics::Counter& invalidations_;
};

}  // namespace storeapi::auth
