#include "auth/known_keys.hpp"

#include <algorithm>

#include "metrics/registry.hpp"

namespace storeapi::auth {
namespace {

bool holds(const KeyPrefixes& sorted, KeyPrefix prefix) { return std::binary_search(sorted.begin(), sorted.end(), prefix); }

}  // namespace

KeyPrefix key_prefix(const crypto::Sha256& hash) noexcept {
  KeyPrefix prefix = 0;
  for (std::size_t i = 0; i < sizeof prefix; ++i) prefix = prefix << 8 | hash[i];
  return prefix;
}

std::optional<KeyPrefix> parse_key_prefix(std::string_view hex) noexcept {
  constexpr std::size_t kDigits = 2 * sizeof(KeyPrefix);
  if (hex.size() < kDigits) return std::nullopt;
  KeyPrefix prefix = 0;
  for (char c : hex.substr(0, kDigits)) {
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else return std::nullopt;
    prefix = prefix << 4 | digit;
  }
  return prefix;
}

KeyPrefixes merge_prefixes(const KeyPrefixes& sorted, std::vector<KeyPrefix> more) {
  std::sort(more.begin(), more.end());
  KeyPrefixes out;
  out.reserve(sorted.size() + more.size());
  std::merge(sorted.begin(), sorted.end(), more.begin(), more.end(), std::back_inserter(out));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.shrink_to_fit();
  return out;
}

KnownKeys::KnownKeys(std::function<bool()> listening)
    : shared_(std::make_shared<const KeyPrefixes>()),
      listening_(std::move(listening)),
      complete_cores_(metrics::Registry::process()
                          .gauge("storeapi_key_set_complete_cores",
                                 "Cores whose set of key hashes is complete: they refuse an unknown key without a "
                                 "query (below the thread count while the set loads after a start or a LISTEN "
                                 "reconnect).")
                          .with({})) {}

KnownKeys::~KnownKeys() { set_complete(false); }

void KnownKeys::set_complete(bool complete) {
  if (complete == complete_) return;
  complete_ = complete;
  complete_cores_.add(complete ? 1 : -1);
}

bool KnownKeys::may_exist(const crypto::Sha256& hash) const {
  if (!complete_ || (listening_ && !listening_())) return true;
  const KeyPrefix prefix = key_prefix(hash);
  return holds(*shared_, prefix) || holds(added_, prefix);
}

void KnownKeys::heard(std::string_view payload) {
  if (payload == "*") {
    set_complete(false);
    return;
  }
  constexpr std::string_view kKey = "key:";
  if (!payload.starts_with(kKey)) return;
  std::optional<KeyPrefix> prefix = parse_key_prefix(payload.substr(kKey.size()));
  if (!prefix || holds(*shared_, *prefix)) return;
  auto at = std::lower_bound(added_.begin(), added_.end(), *prefix);
  if (at == added_.end() || *at != *prefix) added_.insert(at, *prefix);
}

void KnownKeys::install(SharedKeyPrefixes shared, bool complete) {
  shared_ = std::move(shared);
  std::erase_if(added_, [&](KeyPrefix p) { return holds(*shared_, p); });
  set_complete(complete);
}

}  // namespace storeapi::auth
