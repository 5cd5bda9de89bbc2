#include "auth/key_cache.hpp"

#include "metrics/registry.hpp"

#include <cstring>

namespace storeapi::auth {
namespace {

std::optional<crypto::Sha256> parse_hex_hash(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  crypto::Sha256 out{};
  for (std::size_t i = 0; i < 32; ++i) {
    unsigned v = 0;
    for (char c : hex.substr(2 * i, 2)) {
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else return std::nullopt;
    }
    out[i] = static_cast<std::uint8_t>(v);
  }
  return out;
}

}  // namespace

std::size_t KeyCache::HashOfHash::operator()(const Hash& h) const noexcept {
  std::size_t v;
  std::memcpy(&v, h.data(), sizeof v);
  return v;
}

const KeyRecord* KeyCache::find(const Hash& hash, Clock::time_point now) {
  Entry* e = entries_.find(hash);
  if (!e) return nullptr;
  if (e->expires <= now) {
    entries_.erase(hash);
    return nullptr;
  }
  return &e->record;
}

bool KeyCache::known_unknown(const Hash& hash, Clock::time_point now) {
  const Clock::time_point* expires = unknown_.find(hash);
  if (!expires) return false;
  if (*expires <= now) {
    unknown_.erase(hash);
    return false;
  }
  return true;
}

const KeyRecord& KeyCache::insert(const Hash& hash, KeyRecord record, Clock::time_point now,
                                  std::uint64_t looked_up_at) {
  unknown_.erase(hash);
  // A stale answer is stored already expired: the caller uses it at once, and the next
  // find() drops it.
  const Clock::time_point expires = looked_up_at == generation_ ? now + options_.ttl : now;
  return entries_.put(hash, Entry{std::move(record), expires}).record;
}

void KeyCache::insert_unknown(const Hash& hash, Clock::time_point now, std::uint64_t looked_up_at) {
  if (looked_up_at != generation_) return;
  unknown_.put(hash, now + options_.negative_ttl);
}

KeyCache::KeyCache(KeyCacheOptions options)
    : options_(options),
      entries_(options.max_entries),
      unknown_(options.max_negative),
      invalidations_(metrics::Registry::process()
                         .counter("storeapi_key_cache_invalidations_total",
                                  "Invalidations applied to a core's key cache (NOTIFY storeapi_invalidate).")
                         .with({})) {}

void KeyCache::invalidate(std::string_view payload) {
  invalidations_.inc();
  ++generation_;
  if (payload == "*") {
    entries_.clear();
    unknown_.clear();
  } else if (payload.starts_with("key:")) {
    if (auto hash = parse_hex_hash(payload.substr(4))) {
      entries_.erase(*hash);
      unknown_.erase(*hash);
    }
  } else if (payload.starts_with("store:")) {
    if (auto store = Uuid::parse(payload.substr(6)))
      entries_.erase_if([&](const Entry& e) { return e.record.store_id == *store; });
  }
}

}  // namespace storeapi::auth
