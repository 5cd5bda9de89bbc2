#pragma once
// Which API keys exist, as every core knows it: the first 64 bits of the SHA-256 of every
// key ever created, so that a request whose key nobody created is refused (401
// invalid_api_key) without asking the database (docs/DECISIONS.md, "Known key hashes").
//
// The set is a sorted array shared by the cores (8 bytes per key, built by the
// coordinator on core 0, auth/key_set_coordinator.hpp) plus, on each core, the few hashes
// announced since that array was built ("key:<hash>" on the invalidation channel, which
// `key create` waits for every server to confirm). Keys are never deleted, so the set
// only grows and holding a hash is always safe: it only sends the request on to the cache
// and the database, as before. Not holding one is an answer only while the set is
// complete: built after the LISTEN now in force began, and that LISTEN still up.
// A prefix that two hashes share (one chance in 2^64 per key) costs a query, never a
// wrong answer.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/crypto.hpp"
#include "metrics/series.hpp"

namespace storeapi::auth {

using KeyPrefix = std::uint64_t;
// Sorted, no duplicates; never changed once shared.
using KeyPrefixes = std::vector<KeyPrefix>;
using SharedKeyPrefixes = std::shared_ptr<const KeyPrefixes>;

// The hash's first 8 bytes, big-endian: the same order as the hash's hex text.
KeyPrefix key_prefix(const crypto::Sha256& hash) noexcept;
// The prefix of a hash given as hex (at least its first 16 digits, lower case); nullopt
// when it is not one.
std::optional<KeyPrefix> parse_key_prefix(std::string_view hex) noexcept;
// `sorted` with `more` added: sorted, without duplicates.
KeyPrefixes merge_prefixes(const KeyPrefixes& sorted, std::vector<KeyPrefix> more);

class KnownKeys {
 public:
  // `listening`: whether the invalidation channel is heard at this moment (any thread may
  // call it); empty: always.
  explicit KnownKeys(std::function<bool()> listening = {});
  ~KnownKeys();
  KnownKeys(const KnownKeys&) = delete;
  KnownKeys& operator=(const KnownKeys&) = delete;

  // False only when no key with this hash can exist: the set is complete and holds no
  // hash with its prefix.
  bool may_exist(const crypto::Sha256& hash) const;

  // A payload of the invalidation channel: "key:<hex>" adds the hash (a key created, or
  // one revoked: held already); "*" says the channel was lost and found again, so
  // creations may have gone unheard: incomplete until the next complete install.
  void heard(std::string_view payload);

  // The coordinator's new shared array, a superset of the one before: the hashes added
  // here that it holds are dropped from this core's own list. `complete`: built from the
  // database since the last "*".
  void install(SharedKeyPrefixes shared, bool complete);

  bool complete() const noexcept { return complete_; }
  // Hashes this core holds beside the shared array.
  std::size_t own() const noexcept { return added_.size(); }

 private:
  void set_complete(bool complete);

  SharedKeyPrefixes shared_;
  KeyPrefixes added_;  // sorted
  bool complete_ = false;
  std::function<bool()> listening_;
  metrics::Gauge& complete_cores_;  // storeapi_key_set_complete_cores
};

}  // namespace storeapi::auth
