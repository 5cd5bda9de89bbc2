#pragma once
// What the API needs to know of the server's configuration. The app layer reads the
// environment (app/config.hpp) and fills this in; the API never sees the rest.
#include <chrono>
#include <optional>
#include <string>

#include "redis/endpoint.hpp"

namespace storeapi::api {

struct Settings {
  std::string database_url;
  unsigned db_conns_per_thread = 2;
  // The database's statement_timeout (db::PoolOptions::statement_timeout).
  std::chrono::milliseconds db_timeout{10'000};
  // Signs list cursors; empty: the fleet's secret is read from the database at start.
  std::string cursor_secret;
  // Fleet mode: the rate limits shared through this Redis; nullopt: the node's own.
  std::optional<redis::Endpoint> redis;
  std::chrono::milliseconds redis_timeout{200};
};

}  // namespace storeapi::api
