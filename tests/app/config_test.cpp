// The server's configuration from the environment: defaults, each setting read, and the
// one-line error a bad value stops start-up with.
#include "app/config.hpp"
#include "common/env.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/cores.hpp"

namespace storeapi::app {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSettings[] = {
    "STOREAPI_LISTEN",           "STOREAPI_THREADS",          "STOREAPI_ACCESS_LOG",
    "STOREAPI_METRICS_LISTEN",   "STOREAPI_STAGE_TIMING",     "STOREAPI_MAX_CONNECTIONS",
    "STOREAPI_REQUEST_TIMEOUT_MS", "STOREAPI_IDLE_TIMEOUT_MS", "STOREAPI_SHUTDOWN_GRACE_MS",
    "STOREAPI_DATABASE_URL",     "STOREAPI_DB_CONNS_PER_THREAD", "STOREAPI_DB_TIMEOUT_MS",
    "STOREAPI_SECRET",           "STOREAPI_REDIS_URL",        "STOREAPI_REDIS_TIMEOUT_MS",
    "STOREAPI_DRAIN_MS",         "STOREAPI_TRUSTED_PROXY",    "STOREAPI_TAKEOVER",
    "STOREAPI_LISTEN_DATABASE_URL", "STOREAPI_REDIS_CA_FILE", "STOREAPI_REDIS_CERT_FILE",
    "STOREAPI_REDIS_KEY_FILE",
    "STOREAPI_KEY_CACHE_SIZE",
    "STOREAPI_DB_CONNECT_TIMEOUT_MS", "STOREAPI_TCP_USER_TIMEOUT_MS", "STOREAPI_DB_SILENCE_MS",
};

class ConfigFromEnv : public ::testing::Test {
 protected:
  // Every setting unset but the one that is required.
  void SetUp() override {
    clear();
    set("STOREAPI_DATABASE_URL", "postgresql://127.0.0.1/storeapi");
  }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kSettings) ::unsetenv(name);
  }

  static void set(const char* name, const char* value) { ::setenv(name, value, 1); }

  // The configuration, or nullopt and the one-line error it stops the start with.
  struct Loaded {
    std::optional<Config> config;
    std::string error;
  };
  static Loaded load() {
    try {
      return {Config::from_env(), {}};
    } catch (const env::SettingError& e) {
      return {std::nullopt, e.what()};
    }
  }

  // The error of a configuration that must not load.
  static std::string error_of(const char* name, const char* value) {
    set(name, value);
    const auto [c, error] = load();
    ::unsetenv(name);
    return c ? "loaded" : error;
  }
};

TEST_F(ConfigFromEnv, Defaults) {
  const auto [c, error] = load();
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->listen.host, "127.0.0.1");
  EXPECT_EQ(c->listen.port, 8080);
  EXPECT_EQ(c->threads, runtime::Cores::online_cpus());
  EXPECT_EQ(c->access_log, http::AccessLogFormat::json);
  ASSERT_TRUE(c->metrics_listen);
  EXPECT_EQ(c->metrics_listen->port, 9464);
  EXPECT_FALSE(c->stage_timing);
  EXPECT_EQ(c->max_connections, 10'000u);
  EXPECT_EQ(c->request_timeout, 10'000ms);
  EXPECT_EQ(c->idle_timeout, 60'000ms);
  EXPECT_EQ(c->db_conns_per_thread, 2u);
  EXPECT_EQ(c->db_timeout, 10'000ms);
  EXPECT_TRUE(c->secret.empty());
  EXPECT_FALSE(c->redis);
  EXPECT_EQ(c->drain, 0ms);
  EXPECT_TRUE(c->trusted_proxy.empty());
  EXPECT_EQ(c->key_cache_size, 100'000u);
  EXPECT_FALSE(c->takeover);
}

TEST_F(ConfigFromEnv, ReadsEachSetting) {
  set("STOREAPI_LISTEN", "0.0.0.0:9000");
  set("STOREAPI_THREADS", "3");
  set("STOREAPI_ACCESS_LOG", "on");  // the text format's old name
  set("STOREAPI_STAGE_TIMING", "on");
  set("STOREAPI_MAX_CONNECTIONS", "500");
  set("STOREAPI_REQUEST_TIMEOUT_MS", "2500");
  set("STOREAPI_DATABASE_URL", "postgresql:///storeapi");
  set("STOREAPI_DB_CONNS_PER_THREAD", "4");
  set("STOREAPI_SECRET", "0123456789abcdef0123456789abcdef");
  set("STOREAPI_DRAIN_MS", "1500");
  set("STOREAPI_TRUSTED_PROXY", "2001:DB8::1");
  set("STOREAPI_KEY_CACHE_SIZE", "250000");
  set("STOREAPI_TAKEOVER", "on");
  const auto [c, error] = load();
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->listen.host, "0.0.0.0");
  EXPECT_EQ(c->listen.port, 9000);
  EXPECT_EQ(c->threads, 3u);
  EXPECT_EQ(c->access_log, http::AccessLogFormat::text);
  EXPECT_TRUE(c->stage_timing);
  EXPECT_EQ(c->max_connections, 500u);
  EXPECT_EQ(c->request_timeout, 2500ms);
  EXPECT_EQ(c->database_url, "postgresql:///storeapi");
  EXPECT_EQ(c->db_conns_per_thread, 4u);
  EXPECT_EQ(c->secret, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(c->drain, 1500ms);
  EXPECT_EQ(c->trusted_proxy, "2001:db8::1");  // as inet_ntop prints the peer's address
  EXPECT_EQ(c->key_cache_size, 250'000u);
  EXPECT_TRUE(c->takeover);
}

// The invalidations' LISTEN goes where the pools go unless told otherwise (a pooler in
// front of the pools: docs/SCALING.md "Poolers").
TEST_F(ConfigFromEnv, TheListenConnectionFollowsTheDatabaseUnlessGivenItsOwn) {
  set("STOREAPI_DATABASE_URL", "postgresql://storeapi@10.0.0.6:6432/storeapi");
  Loaded loaded = load();
  ASSERT_TRUE(loaded.config) << loaded.error;
  EXPECT_EQ(loaded.config->listen_database_url, "postgresql://storeapi@10.0.0.6:6432/storeapi");
  set("STOREAPI_LISTEN_DATABASE_URL", "postgresql://storeapi@10.0.0.5/storeapi");
  loaded = load();
  ASSERT_TRUE(loaded.config) << loaded.error;
  EXPECT_EQ(loaded.config->database_url, "postgresql://storeapi@10.0.0.6:6432/storeapi");
  EXPECT_EQ(loaded.config->listen_database_url, "postgresql://storeapi@10.0.0.5/storeapi");
}

TEST_F(ConfigFromEnv, RedisTlsFilesOnlyForRediss) {
  set("STOREAPI_REDIS_URL", "redis://127.0.0.1:6379");
  EXPECT_EQ(error_of("STOREAPI_REDIS_CA_FILE", "/etc/ssl/certs/ca-certificates.crt"),
            "STOREAPI_REDIS_CA_FILE: only for a rediss:// STOREAPI_REDIS_URL");
  set("STOREAPI_REDIS_URL", "rediss://127.0.0.1:6380");
  const auto [c, error] = load();
  ASSERT_TRUE(c) << error;  // the system's CAs
  ASSERT_TRUE(c->redis && c->redis->tls_context);
  EXPECT_TRUE(error_of("STOREAPI_REDIS_KEY_FILE", "/nonexistent.key").find("needs both") != std::string::npos);
}

TEST_F(ConfigFromEnv, BadValuesStopStartUpWithOneLine) {
  EXPECT_EQ(error_of("STOREAPI_LISTEN", "nowhere"),
            "STOREAPI_LISTEN: expected an IP address and port (127.0.0.1:8080, [::1]:8080; not a host name), got "
            "'nowhere'");
  EXPECT_EQ(error_of("STOREAPI_ACCESS_LOG", "yes"), "STOREAPI_ACCESS_LOG: expected json, text or off, got 'yes'");
  EXPECT_EQ(error_of("STOREAPI_STAGE_TIMING", "1"), "STOREAPI_STAGE_TIMING: expected on or off, got '1'");
  EXPECT_EQ(error_of("STOREAPI_TAKEOVER", "yes"), "STOREAPI_TAKEOVER: expected on or off, got 'yes'");
  EXPECT_EQ(error_of("STOREAPI_TRUSTED_PROXY", "proxy.local"),
            "STOREAPI_TRUSTED_PROXY: expected an IPv4 or IPv6 address, got 'proxy.local'");
  for (const auto& [name, value] : {std::pair{"STOREAPI_THREADS", "0"}, std::pair{"STOREAPI_THREADS", "257"},
                                    std::pair{"STOREAPI_DB_CONNS_PER_THREAD", "65"},
                                    std::pair{"STOREAPI_KEY_CACHE_SIZE", "0"},
                                    std::pair{"STOREAPI_KEY_CACHE_SIZE", "100000001"},
                                    std::pair{"STOREAPI_KEY_CACHE_SIZE", "lots"},
                                    std::pair{"STOREAPI_DRAIN_MS", "60001"},
                                    std::pair{"STOREAPI_REQUEST_TIMEOUT_MS", "soon"}}) {
    const std::string error = error_of(name, value);
    EXPECT_TRUE(error.starts_with(name)) << name << "=" << value << ": " << error;
  }
}

// Host names are refused with a message that says an address is needed (they used to
// fail later at bind with a bare "Invalid argument"); a bracketed IPv6 address works.
TEST_F(ConfigFromEnv, ListenAddressesMustBeIpAddresses) {
  EXPECT_EQ(error_of("STOREAPI_LISTEN", "localhost:0"),
            "STOREAPI_LISTEN: expected an IP address and port (127.0.0.1:8080, [::1]:8080; not a host name), got "
            "'localhost:0'");
  EXPECT_EQ(error_of("STOREAPI_METRICS_LISTEN", "metrics.local:9464"),
            "STOREAPI_METRICS_LISTEN: expected an IP address and port (127.0.0.1:9464, [::1]:9464; not a host name) "
            "or off, got 'metrics.local:9464'");
  set("STOREAPI_LISTEN", "[::1]:0");
  const auto [c, error] = load();
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->listen.host, "::1");
  // Printed ("listening on ...") in the form the setting takes back; seen failing: ::1:0.
  EXPECT_EQ(c->listen.text(), "[::1]:0");
  EXPECT_EQ((runtime::ListenAddress{"127.0.0.1", 8080}.text()), "127.0.0.1:8080");
}

// Without a database the server used to start, log "database connection failed" and
// answer 503 to everything; now it stops at once like storeapi-admin and storeapi-dispatch.
TEST_F(ConfigFromEnv, TheDatabaseUrlIsRequired) {
  ::unsetenv("STOREAPI_DATABASE_URL");
  const auto [c, error] = load();
  EXPECT_FALSE(c);
  EXPECT_EQ(error, "STOREAPI_DATABASE_URL is not set (a libpq URL, e.g. postgresql://storeapi@127.0.0.1/storeapi)");
  EXPECT_TRUE(error_of("STOREAPI_DATABASE_URL", "").starts_with("STOREAPI_DATABASE_URL is not set"));
}

// A value libpq cannot parse stops the start naming the setting, without repeating the
// value (it may hold a password). Seen failing: STOREAPI_DATABASE_URL=notaurl started a
// server that listened and answered 503 for ever.
TEST_F(ConfigFromEnv, AMalformedDatabaseUrlStopsTheStart) {
  const std::string error = error_of("STOREAPI_DATABASE_URL", "notaurl");
  EXPECT_TRUE(error.starts_with("STOREAPI_DATABASE_URL: not a libpq connection URL or string")) << error;
  EXPECT_EQ(error.find("notaurl"), std::string::npos) << error;
  const std::string with_password = error_of("STOREAPI_DATABASE_URL", "postgresql://u:hunter%zz@127.0.0.1/db");
  EXPECT_TRUE(with_password.starts_with("STOREAPI_DATABASE_URL: ")) << with_password;
  EXPECT_EQ(with_password.find("hunter"), std::string::npos) << with_password;
  set("STOREAPI_DATABASE_URL", "postgresql://127.0.0.1/storeapi");  // error_of unset it
  const std::string listen = error_of("STOREAPI_LISTEN_DATABASE_URL", "notaurl");
  EXPECT_TRUE(listen.starts_with("STOREAPI_LISTEN_DATABASE_URL: ")) << listen;
  const std::string replica = error_of("STOREAPI_REPLICA_URLS", "postgresql://127.0.0.1/db,notaurl");
  EXPECT_TRUE(replica.starts_with("STOREAPI_REPLICA_URLS: ")) << replica;
  EXPECT_EQ(error_of("STOREAPI_DATABASE_URL", "host=127.0.0.1 dbname=storeapi"), "loaded");
}

// systemd's EnvironmentFile keeps a comment written after a value in the value
// (docs/DEPLOY.md's settings file once did: `STOREAPI_LISTEN=127.0.0.1:8080 # behind the
// proxy only`): refused naming the setting and the rule, not as a malformed address.
TEST_F(ConfigFromEnv, ACommentKeptInAValueIsNamedAsSuch) {
  for (const char* value : {"127.0.0.1:8080 # behind the proxy only", "127.0.0.1:8080\t# tab"}) {
    const std::string error = error_of("STOREAPI_LISTEN", value);
    EXPECT_TRUE(error.starts_with("STOREAPI_LISTEN: the value holds a comment")) << error;
    EXPECT_NE(error.find("on a line of its own"), std::string::npos) << error;
  }
  EXPECT_TRUE(error_of("STOREAPI_DATABASE_URL", "postgresql://u:pw@h/db # primary")
                  .starts_with("STOREAPI_DATABASE_URL: the value holds a comment"));
  set("STOREAPI_DATABASE_URL", "postgresql://127.0.0.1/storeapi");  // error_of unset it
  EXPECT_EQ(error_of("STOREAPI_ACCESS_LOG", "json#x"), "STOREAPI_ACCESS_LOG: expected json, text or off, got 'json#x'");
}

// A cursor secret shorter than the database's own (32 characters) is refused; 32 bytes is
// enough; empty means unset (the database's secret), as in dist/storeapi.env.example.
TEST_F(ConfigFromEnv, ASecretHasAtLeast32Bytes) {
  EXPECT_EQ(error_of("STOREAPI_SECRET", "x"), "STOREAPI_SECRET: expected at least 32 bytes (e.g. openssl rand -hex 32), got 1");
  EXPECT_EQ(error_of("STOREAPI_SECRET", "0123456789abcdef0123456789abcde"),
            "STOREAPI_SECRET: expected at least 32 bytes (e.g. openssl rand -hex 32), got 31");
  EXPECT_EQ(error_of("STOREAPI_SECRET", "0123456789abcdef0123456789abcdef"), "loaded");
  EXPECT_EQ(error_of("STOREAPI_SECRET", ""), "loaded");
}

}  // namespace
}  // namespace storeapi::app

namespace storeapi::app {
namespace {

// The failure-detection settings: LAN defaults, each read, 0 turning the TCP user timeout
// and the silence check off (not the connect deadline: a host must end somewhen).
TEST_F(ConfigFromEnv, FailureDetectionSettings) {
  {
    const auto [c, error] = load();
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(c->db_connect_timeout, 1'000ms);
    EXPECT_EQ(c->tcp_user_timeout, 2'000ms);
    EXPECT_EQ(c->db_silence, 1'000ms);
  }
  set("STOREAPI_DB_CONNECT_TIMEOUT_MS", "2500");
  set("STOREAPI_TCP_USER_TIMEOUT_MS", "0");
  set("STOREAPI_DB_SILENCE_MS", "0");
  const auto [c, error] = load();
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->db_connect_timeout, 2'500ms);
  EXPECT_EQ(c->tcp_user_timeout, 0ms);
  EXPECT_EQ(c->db_silence, 0ms);
  clear();
  set("STOREAPI_DATABASE_URL", "postgresql://127.0.0.1/storeapi");
  EXPECT_NE(error_of("STOREAPI_DB_CONNECT_TIMEOUT_MS", "0"), "loaded");
  EXPECT_NE(error_of("STOREAPI_DB_SILENCE_MS", "soon").find("STOREAPI_DB_SILENCE_MS"), std::string::npos);
}

}  // namespace
}  // namespace storeapi::app
