#pragma once
// Server configuration, read once from the environment (docs/DESIGN.md §3).
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "http/access_log.hpp"
#include "redis/endpoint.hpp"
#include "runtime/cores.hpp"
#include "runtime/net.hpp"

namespace storeapi::app {

struct Config {
  runtime::ListenAddress listen;                  // STOREAPI_LISTEN, default 127.0.0.1:8080
  unsigned threads = 0;                           // STOREAPI_THREADS, default: online CPUs
  http::AccessLogFormat access_log = http::AccessLogFormat::json;  // STOREAPI_ACCESS_LOG=json|text|off
  // STOREAPI_METRICS_LISTEN: where /metrics is served, default 127.0.0.1:9464; nullopt: off.
  std::optional<runtime::ListenAddress> metrics_listen = runtime::ListenAddress{"127.0.0.1", 9464};
  bool stage_timing = false;                      // STOREAPI_STAGE_TIMING=on|off (storeapi_request_stage_seconds on /metrics)
  std::size_t max_connections = 10'000;           // STOREAPI_MAX_CONNECTIONS (whole process)
  bool max_connections_set = false;               // given, not the default (app/open_files.hpp)
  std::chrono::milliseconds request_timeout{10'000};  // STOREAPI_REQUEST_TIMEOUT_MS
  std::chrono::milliseconds idle_timeout{60'000};     // STOREAPI_IDLE_TIMEOUT_MS
  std::chrono::milliseconds shutdown_grace{9'000};    // STOREAPI_SHUTDOWN_GRACE_MS
  std::string database_url;                       // STOREAPI_DATABASE_URL
  // STOREAPI_LISTEN_DATABASE_URL: the invalidations' LISTEN connection, straight to the
  // primary when the pools go through a pooler (LISTEN needs a session of its own);
  // default: database_url.
  std::string listen_database_url;
  unsigned db_conns_per_thread = 2;               // STOREAPI_DB_CONNS_PER_THREAD
  // STOREAPI_DB_TIMEOUT_MS: the database's statement_timeout; an answer overdue by a
  // second more counts the connection as lost (db::PoolOptions::statement_timeout).
  std::chrono::milliseconds db_timeout{10'000};
  // How a database or Redis that is gone is noticed (docs/DEPLOY.md "High availability"):
  // STOREAPI_DB_CONNECT_TIMEOUT_MS, each host's connect deadline (the URL's connect_timeout
  // wins); STOREAPI_TCP_USER_TIMEOUT_MS, every PostgreSQL and Redis socket's
  // TCP_USER_TIMEOUT with keepalives (the URL's tcp_user_timeout wins; 0: the kernel's);
  // STOREAPI_DB_SILENCE_MS, how long a connection owing an answer may stay silent before
  // its host is asked for a new connection, and half of it an idle connection's ping
  // interval (0: neither).
  std::chrono::milliseconds db_connect_timeout{1'000};
  std::chrono::milliseconds tcp_user_timeout{2'000};
  std::chrono::milliseconds db_silence{1'000};
  // STOREAPI_SECRET signs list cursors; unset (empty), the fleet's secret is read from
  // the database (sql/020_cursor_secret.sql). At least kMinSecretBytes long.
  std::string secret;
  static constexpr std::size_t kMinSecretBytes = 32;
  // STOREAPI_REDIS_URL: fleet mode, the rate limits shared through this Redis
  // (redis[s]://[user[:password]@]host[:port][/db] or unix://[user[:password]@]/path[?db=N];
  // rediss:// verified with STOREAPI_REDIS_CA_FILE, client certificate STOREAPI_REDIS_CERT_FILE
  // and _KEY_FILE). Unset: each process keeps its own (one node).
  std::optional<redis::Endpoint> redis;
  std::chrono::milliseconds redis_timeout{200};   // STOREAPI_REDIS_TIMEOUT_MS
  // STOREAPI_REPLICA_URLS: libpq URLs of hot standbys (comma-separated) that serve GETs of
  // stores whose last write they have replayed. Empty: every read goes to the primary.
  std::vector<std::string> replica_urls;
  // STOREAPI_REPLICA_POLL_MS: how often each core asks each standby how far it replayed.
  std::chrono::milliseconds replica_poll{10};
  // STOREAPI_DRAIN_MS: on SIGTERM, how long /readyz answers 503 while everything else is
  // still served, before the listeners close (so a load balancer's health check takes
  // the node out first). 0: close at once.
  std::chrono::milliseconds drain{0};
  std::string trusted_proxy;                      // STOREAPI_TRUSTED_PROXY: an IP address, or empty
  // STOREAPI_KEY_CACHE_SIZE: API keys each core keeps in its cache; past it the least
  // recently used is dropped (docs/SCALING.md sizes it).
  std::size_t key_cache_size = 100'000;
  // STOREAPI_TAKEOVER=on: start beside a running server on the same STOREAPI_LISTEN (both
  // serve, SO_REUSEPORT) to replace it; off: a port in use stops the start.
  bool takeover = false;

  // Reads the environment; a bad value throws env::SettingError (one line naming it).
  static Config from_env();
};

}  // namespace storeapi::app
