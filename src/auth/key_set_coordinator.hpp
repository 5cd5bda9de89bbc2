#pragma once
// Builds the array of key hashes the cores share (auth/known_keys.hpp), on one core (core
// 0, where the LISTEN loop runs), and hands every new one to all cores through `publish`.
//
// It hears the invalidation channel's payloads in their order, each after it was passed to
// the cores, so a core always sees a "key:<hash>" before an array that holds it:
//   - "*" (the LISTEN began, at start or after a reconnect): loads every hash from the
//     database, in pages, starting only now, so that a key committed before this LISTEN
//     is in the load and one committed after it is announced to it. Until that load is in,
//     the cores are incomplete and ask the database as before. A newer "*" makes a
//     running load's result incomplete (it is still published: every hash it holds exists).
//   - "key:<hash>": kept; once kCompactAfter of them are kept, merged into a new array, so
//     that the cores' own lists stay short.
// Every array published holds the previous one: a hash once known is never dropped.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "auth/known_keys.hpp"
#include "db/pool.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"
#include "metrics/series.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

// One page of the load: the prefixes of the first $2 hashes after $1, in the index's order.
#define STOREAPI_KEY_HASH_PAGE_COLUMNS(X) X(prefix, text) /* the hash's first 16 hex digits */
STOREAPI_DB_ROW(KeyHashPage, STOREAPI_KEY_HASH_PAGE_COLUMNS);
extern const db::Statement kKeyHashPage;

class KeySetCoordinator {
 public:
  using Publish = std::function<void(SharedKeyPrefixes, bool complete)>;
  static constexpr std::size_t kCompactAfter = 1'024;

  // `pool`: the primary's, where a key is visible as soon as its NOTIFY is sent.
  KeySetCoordinator(db::Pool& pool, Publish publish);

  // Every payload of the invalidation channel, in order, on the coordinator's core.
  void heard(std::string_view payload);

 private:
  runtime::task<void> load(std::uint64_t epoch);
  void publish(std::vector<KeyPrefix> more);

  db::Pool& pool_;
  Publish publish_;
  SharedKeyPrefixes shared_;
  std::vector<KeyPrefix> added_;  // heard since shared_ was built
  std::uint64_t epoch_ = 0;       // "*" heard so far
  bool complete_ = false;
  metrics::Gauge& hashes_;  // storeapi_key_set_hashes: the size of the last array published
  metrics::Counter& loads_;  // storeapi_key_set_loads_total
};

}  // namespace storeapi::auth
