#include "app/config.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string_view>

#include "common/env.hpp"
#include "db/conninfo.hpp"
#include "metrics/listen_setting.hpp"

namespace storeapi::app {

using env::get;
using env::read_millis;
using env::read_number;

namespace {

// NAME=on|off; unset leaves `out` as it is.
void read_on_off(const char* name, bool& out) {
  const char* v = get(name);
  if (!v) return;
  const std::string_view s(v);
  if (s != "on" && s != "off") throw env::SettingError(std::string(name) + ": expected on or off, got '" + v + "'");
  out = s == "on";
}

// STOREAPI_REDIS_CA_FILE, _CERT_FILE, _KEY_FILE: for a rediss:// endpoint only.
void read_redis_tls(std::optional<redis::Endpoint>& endpoint) {
  redis::TlsFiles files;
  for (auto [name, out] : {std::pair{"STOREAPI_REDIS_CA_FILE", &files.ca_file},
                           std::pair{"STOREAPI_REDIS_CERT_FILE", &files.cert_file},
                           std::pair{"STOREAPI_REDIS_KEY_FILE", &files.key_file}}) {
    const char* v = get(name);
    if (!v || !*v) continue;
    if (!endpoint || !endpoint->tls) throw env::SettingError(std::string(name) + ": only for a rediss:// STOREAPI_REDIS_URL");
    *out = v;
  }
  if (endpoint && endpoint->tls) endpoint->tls_context = redis::TlsContext::load(files);
}

}  // namespace

Config Config::from_env() {
  Config c;
  c.threads = runtime::Cores::online_cpus();
  if (const char* v = get("STOREAPI_LISTEN"); v && !runtime::ListenAddress::parse(v, c.listen))
    throw env::SettingError(std::string("STOREAPI_LISTEN: expected an IP address and port (127.0.0.1:8080, [::1]:8080; not a host name), got '") + v + "'");
  read_number<unsigned>("STOREAPI_THREADS", c.threads, 1, 256);
  read_number<std::size_t>("STOREAPI_MAX_CONNECTIONS", c.max_connections, 1, 1'000'000);
  read_number<unsigned>("STOREAPI_DB_CONNS_PER_THREAD", c.db_conns_per_thread, 1, 64);
  read_number<std::size_t>("STOREAPI_KEY_CACHE_SIZE", c.key_cache_size, 1, 100'000'000);
  read_millis("STOREAPI_REQUEST_TIMEOUT_MS", c.request_timeout);
  read_millis("STOREAPI_IDLE_TIMEOUT_MS", c.idle_timeout);
  read_millis("STOREAPI_SHUTDOWN_GRACE_MS", c.shutdown_grace);
  read_millis("STOREAPI_DB_TIMEOUT_MS", c.db_timeout);
  read_millis("STOREAPI_DB_CONNECT_TIMEOUT_MS", c.db_connect_timeout);
  // 0 turns these two off, so they take 0 (read_millis does not).
  for (auto [name, out] : {std::pair{"STOREAPI_TCP_USER_TIMEOUT_MS", &c.tcp_user_timeout},
                           std::pair{"STOREAPI_DB_SILENCE_MS", &c.db_silence}}) {
    long long ms = out->count();
    read_number<long long>(name, ms, 0, 3'600'000);
    *out = std::chrono::milliseconds(ms);
  }
  read_millis("STOREAPI_REDIS_TIMEOUT_MS", c.redis_timeout);
  read_millis("STOREAPI_REPLICA_POLL_MS", c.replica_poll);
  read_on_off("STOREAPI_STAGE_TIMING", c.stage_timing);
  read_on_off("STOREAPI_TAKEOVER", c.takeover);
  c.max_connections_set = get("STOREAPI_MAX_CONNECTIONS") != nullptr;
  if (const char* v = get("STOREAPI_ACCESS_LOG")) {
    std::string_view s(v);
    // "on" was the text format's name before JSON lines became the default.
    if (s == "json") c.access_log = http::AccessLogFormat::json;
    else if (s == "text" || s == "on") c.access_log = http::AccessLogFormat::text;
    else if (s == "off") c.access_log = http::AccessLogFormat::off;
    else throw env::SettingError(std::string("STOREAPI_ACCESS_LOG: expected json, text or off, got '") + v + "'");
  }
  if (const char* v = get("STOREAPI_TRUSTED_PROXY"); v && *v) {
    // Compared with the peer's address as inet_ntop prints it, so it must be one.
    unsigned char parsed[sizeof(in6_addr)];
    if (::inet_pton(AF_INET, v, parsed) != 1 && ::inet_pton(AF_INET6, v, parsed) != 1)
      throw env::SettingError(std::string("STOREAPI_TRUSTED_PROXY: expected an IPv4 or IPv6 address, got '") + v + "'");
    char canonical[INET6_ADDRSTRLEN];
    const int family = std::string_view(v).find(':') == std::string_view::npos ? AF_INET : AF_INET6;
    c.trusted_proxy = ::inet_ntop(family, parsed, canonical, sizeof canonical);
  }
  metrics::read_listen_setting("STOREAPI_METRICS_LISTEN", c.metrics_listen);
  // Required, as for storeapi-admin and storeapi-dispatch: libpq's defaults (a local
  // socket, the user's name) would start a server that answers 503 to everything.
  if (const char* v = get("STOREAPI_DATABASE_URL"))
    db::check_conninfo_setting("STOREAPI_DATABASE_URL", c.database_url = v);
  else
    throw env::SettingError("STOREAPI_DATABASE_URL is not set (a libpq URL, e.g. postgresql://storeapi@127.0.0.1/storeapi)");
  if (const char* v = get("STOREAPI_SECRET")) {
    // It keys the cursors' HMAC: a short one can be guessed and every cursor forged (the
    // database's own secret has at least 32 characters too).
    if (std::string_view(v).size() < kMinSecretBytes)
      throw env::SettingError("STOREAPI_SECRET: expected at least " + std::to_string(kMinSecretBytes) +
                              " bytes (e.g. openssl rand -hex 32), got " + std::to_string(std::string_view(v).size()));
    c.secret = v;
  }
  if (const char* v = get("STOREAPI_REDIS_URL")) c.redis = redis::parse_endpoint(v);
  read_redis_tls(c.redis);
  if (const char* v = get("STOREAPI_LISTEN_DATABASE_URL"); v && *v)
    db::check_conninfo_setting("STOREAPI_LISTEN_DATABASE_URL", c.listen_database_url = v);
  else c.listen_database_url = c.database_url;
  if (const char* v = get("STOREAPI_REPLICA_URLS")) {
    for (std::string_view rest(v); !rest.empty();) {
      const std::size_t comma = rest.find(',');
      const std::string_view url = rest.substr(0, comma);
      if (url.empty())
        throw env::SettingError("STOREAPI_REPLICA_URLS: expected comma-separated libpq URLs, got an empty one");
      db::check_conninfo_setting("STOREAPI_REPLICA_URLS", c.replica_urls.emplace_back(url));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  if (c.replica_poll.count() == 0) throw env::SettingError("STOREAPI_REPLICA_POLL_MS: expected at least 1");
  long long drain_ms = 0;
  read_number<long long>("STOREAPI_DRAIN_MS", drain_ms, 0, 60'000);
  c.drain = std::chrono::milliseconds(drain_ms);
  return c;
}

}  // namespace storeapi::app
