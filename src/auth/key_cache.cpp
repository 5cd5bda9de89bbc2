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

// Bounded maps: drop what has expired; if that is not enough, start over (a cold cache
// costs one query per key, which is the price of a bound).
template <class Map, class ExpiresOf>
void make_room(Map& map, std::size_t max, std::chrono::steady_clock::time_point now, ExpiresOf expires_of) {
  if (map.size() < max) return;
  std::erase_if(map, [&](const auto& kv) { return expires_of(kv.second) <= now; });
  if (map.size() >= max) map.clear();
}

}  // namespace

std::size_t KeyCache::HashOfHash::operator()(const Hash& h) const noexcept {
  std::size_t v;
  std::memcpy(&v, h.data(), sizeof v);
  return v;
}

const KeyRecord* KeyCache::find(const Hash& hash, Clock::time_point now) {
  auto it = entries_.find(hash);
  if (it == entries_.end()) return nullptr;
  if (it->second.expires <= now) {
    entries_.erase(it);
    return nullptr;
  }
  return &it->second.record;
}

bool KeyCache::known_unknown(const Hash& hash, Clock::time_point now) {
  auto it = unknown_.find(hash);
  if (it == unknown_.end()) return false;
  if (it->second <= now) {
    unknown_.erase(it);
    return false;
  }
  return true;
}

const KeyRecord& KeyCache::insert(const Hash& hash, KeyRecord record, Clock::time_point now,
                                  std::uint64_t looked_up_at) {
  make_room(entries_, options_.max_entries, now, [](const Entry& e) { return e.expires; });
  unknown_.erase(hash);
  Entry& e = entries_[hash];
  e.record = std::move(record);
  // A stale answer is stored already expired: the caller uses it at once, and the next
  // find() drops it.
  e.expires = looked_up_at == generation_ ? now + options_.ttl : now;
  return e.record;
}

void KeyCache::insert_unknown(const Hash& hash, Clock::time_point now, std::uint64_t looked_up_at) {
  if (looked_up_at != generation_) return;
  make_room(unknown_, options_.max_negative, now, [](Clock::time_point t) { return t; });
  unknown_[hash] = now + options_.negative_ttl;
}

KeyCache::KeyCache(KeyCacheOptions options)
    : options_(options),
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
      std::erase_if(entries_, [&](const auto& kv) { return kv.second.record.store_id == *store; });
  }
}

}  // namespace storeapi::auth
