#pragma once
// What the API needs to know of the server's configuration. The app layer reads the
// environment (app/config.hpp) and fills this in; the API never sees the rest.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redis/endpoint.hpp"

namespace storeapi::api {

struct Settings {
  std::string database_url;
  unsigned db_conns_per_thread = 2;
  // The database's statement_timeout (db::PoolOptions::statement_timeout).
  std::chrono::milliseconds db_timeout{10'000};
  // How a database that is gone is noticed (db::PoolOptions: connect_timeout,
  // tcp_user_timeout, silence); tcp_user_timeout is Redis's socket's too.
  std::chrono::milliseconds db_connect_timeout{1'000};
  std::chrono::milliseconds tcp_user_timeout{2'000};
  std::chrono::milliseconds db_silence{1'000};
  // Signs list cursors; empty: the fleet's secret is read from the database at start.
  std::string cursor_secret;
  // Fleet mode: the rate limits shared through this Redis; nullopt: the node's own.
  std::optional<redis::Endpoint> redis;
  std::chrono::milliseconds redis_timeout{200};
  // Hot standbys that serve GETs of stores whose last write they have replayed (libpq
  // URLs); empty: every read on the primary. Each core polls each every `replica_poll`.
  std::vector<std::string> replica_urls;
  std::chrono::milliseconds replica_poll{10};
  // Entries of each core's key cache (auth::KeyCacheOptions::max_entries).
  std::size_t key_cache_size = 100'000;
  // Whether the invalidation channel is heard now (any thread may ask): while it is not,
  // key creations may go unheard, so the node's set of key hashes is no answer
  // (auth/known_keys.hpp). Empty: always.
  std::function<bool()> invalidations_listening;
  // Applies an invalidation payload on every core of this process, as if heard on the
  // channel but unconfirmed: a core's fenced write forgets its store everywhere
  // (docs/DECISIONS.md, "Pods"). Empty: on the calling core only.
  std::function<void(std::string_view payload)> invalidate_cores;
};

}  // namespace storeapi::api
