// STOREAPI_REDIS_URL to a secured Redis (Debian's redis-server, started here): the default
// user's password (requirepass), an ACL user with the default user off, TLS only with the
// test's CA (STOREAPI_REDIS_CA_FILE) and a client certificate when Redis demands one. The
// shared bucket is used (its key appears in Redis) and a wrong password, a CA that did not
// sign the server's certificate, a certificate for another host or a missing client
// certificate stop the start with a message that never shows the password.
// Seen failing without the feature: with AUTH left out of append_session_setup every start
// ends in NOAUTH; with the X509_VERIFY_PARAM_set1_ip_asc line removed the certificate for
// another host is accepted (the server starts).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "auth/auth_fixture.hpp"
#include "support/poll.hpp"
#include "support/redis_process.hpp"
#include "support/test_certificates.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

using Settings = std::map<std::string, std::string>;

class SecuredRedis : public AuthTest {
 protected:
  void SetUp() override {}

  // Starts a server with these settings and checks that its rate limit is the one in
  // `redis` (the store's bucket appears there).
  void expect_shared_bucket(RedisProcess& redis, const Settings& settings) {
    ASSERT_NO_FATAL_FAILURE(start_server(2, 1, settings));
    auto store = db_.create_store();
    auto key = create_key(store.id);
    EXPECT_EQ(get("/v1/store", bearer(key.key)).status, 200);
    EXPECT_EQ(redis.command("EXISTS storeapi:{" + store.id + "}:rate"), ":1");
    EXPECT_EQ(server().stderr_text().find("unreachable"), std::string::npos) << server().stderr_text();
  }

  // Starts a server that must stop at once: its exit status and what it printed.
  std::pair<int, std::string> refused_start(const Settings& settings) {
    ProcessOptions options;
    options.env = settings;
    options.env.emplace("STOREAPI_DATABASE_URL", api_url(db_));
    options.wait_for_listening = false;
    ServerProcess node(options);
    const auto status = node.wait_exit(std::chrono::seconds(30));
    return {status.value_or(-1), node.stderr_text()};
  }

  void expect_refused(const Settings& settings, int status, const std::string& why, const std::string& secret) {
    auto [exit_status, log] = refused_start(settings);
    EXPECT_EQ(exit_status, status) << log;
    EXPECT_NE(log.find(why), std::string::npos) << log;
    EXPECT_NE(log.find("STOREAPI_REDIS"), std::string::npos) << log;
    EXPECT_EQ(log.find(secret), std::string::npos) << "the password is in the message: " << log;
  }
};

TEST_F(SecuredRedis, TheDefaultUsersPasswordSignsIn) {
  // Percent-escaped in the URL: a space and a '%'.
  RedisProcess redis({.user = "", .password = "pass word%"});
  const std::string url = "redis://:pass%20word%25@127.0.0.1:" + std::to_string(redis.port());
  expect_shared_bucket(redis, {{"STOREAPI_REDIS_URL", url}});
  // In the environment only: nothing in the command line other users can read.
  std::ifstream cmdline("/proc/" + std::to_string(server().pid()) + "/cmdline");
  const std::string argv{std::istreambuf_iterator<char>(cmdline), {}};
  EXPECT_EQ(argv.find("pass"), std::string::npos) << argv;

  const std::string port = std::to_string(redis.port());
  expect_refused({{"STOREAPI_REDIS_URL", "redis://:not-the-password@127.0.0.1:" + port}}, 1, "WRONGPASS",
                 "not-the-password");
  expect_refused({{"STOREAPI_REDIS_URL", "redis://127.0.0.1:" + port}}, 1, "NOAUTH", "pass word");
}

TEST_F(SecuredRedis, AnAclUserSignsIn) {
  RedisProcess redis;  // user "storeapi", the default user off
  expect_shared_bucket(redis, {{"STOREAPI_REDIS_URL", redis.url()}});
  const std::string port = std::to_string(redis.port());
  expect_refused({{"STOREAPI_REDIS_URL", "redis://storeapi:wrong-pw@127.0.0.1:" + port}}, 1, "WRONGPASS", "wrong-pw");
  expect_refused({{"STOREAPI_REDIS_URL", "redis://someone:fleet-p@ss/w:rd@127.0.0.1:" + port}}, 1, "WRONGPASS",
                 "fleet-p@ss");
}

TEST_F(SecuredRedis, AnAclUserSignsInThroughTheSocketFile) {
  RedisProcess redis;
  expect_shared_bucket(redis, {{"STOREAPI_REDIS_URL", redis.socket_url()}});
}

TEST_F(SecuredRedis, TlsVerifiedAgainstTheCaFile) {
  TestCertificates certificates;
  RedisProcess redis({.tls = &certificates});
  const Settings settings{{"STOREAPI_REDIS_URL", redis.url()}, {"STOREAPI_REDIS_CA_FILE", certificates.ca_file()}};
  expect_shared_bucket(redis, settings);

  // A new connection after an outage makes a new TLS session.
  redis.kill();
  redis.start();
  // The reconnection's own line: the outage's line ends "... until it is back" too.
  const auto back = [&] {
    std::istringstream lines(server().stderr_text());
    for (std::string line; std::getline(lines, line);)
      if (line.ends_with(" is back") && line.find("unreachable") == std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(eventually(back, std::chrono::seconds(60)))
      << server().stderr_text();
  auto store = db_.create_store();
  auto key = create_key(store.id);
  EXPECT_TRUE(eventually([&] {
    get("/v1/store", bearer(key.key));
    return redis.command("EXISTS storeapi:{" + store.id + "}:rate") == ":1";
  }));
}

TEST_F(SecuredRedis, AnUntrustedCertificateStopsTheStart) {
  TestCertificates certificates, others, elsewhere("DNS:redis.elsewhere.example");
  RedisProcess redis({.tls = &certificates});
  // Another CA, and the system's CAs (which never signed the test's).
  expect_refused({{"STOREAPI_REDIS_URL", redis.url()}, {"STOREAPI_REDIS_CA_FILE", others.ca_file()}}, 1,
                 "certificate verify failed", "fleet-p@ss");
  expect_refused({{"STOREAPI_REDIS_URL", redis.url()}}, 1, "certificate verify failed", "fleet-p@ss");
  // Signed by a trusted CA, but for another host.
  RedisProcess misnamed({.tls = &elsewhere});
  expect_refused({{"STOREAPI_REDIS_URL", misnamed.url()}, {"STOREAPI_REDIS_CA_FILE", elsewhere.ca_file()}}, 1,
                 "certificate verify failed", "fleet-p@ss");
}

TEST_F(SecuredRedis, AClientCertificateWhenRedisDemandsOne) {
  TestCertificates certificates;
  RedisProcess redis({.tls = &certificates, .require_client_certificate = true});
  const Settings without{{"STOREAPI_REDIS_URL", redis.url()}, {"STOREAPI_REDIS_CA_FILE", certificates.ca_file()}};
  auto [status, log] = refused_start(without);
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("STOREAPI_REDIS_URL: redis at 127.0.0.1:" + std::to_string(redis.port()) + ": "),
            std::string::npos)
      << log;
  Settings with = without;
  with["STOREAPI_REDIS_CERT_FILE"] = certificates.client().certificate_file;
  with["STOREAPI_REDIS_KEY_FILE"] = certificates.client().key_file;
  expect_shared_bucket(redis, with);
}

TEST_F(SecuredRedis, TlsSettingsAreCheckedAtStart) {
  TestCertificates certificates;
  const std::string tls_url = "rediss://storeapi:hunter2@127.0.0.1:6379";
  expect_refused({{"STOREAPI_REDIS_URL", "redis://storeapi:hunter2@127.0.0.1:6379"},
                  {"STOREAPI_REDIS_CA_FILE", certificates.ca_file()}},
                 2, "STOREAPI_REDIS_CA_FILE: only for a rediss://", "hunter2");
  expect_refused({{"STOREAPI_REDIS_URL", tls_url}, {"STOREAPI_REDIS_CA_FILE", "/nonexistent/ca.pem"}}, 2,
                 "STOREAPI_REDIS_CA_FILE: cannot load /nonexistent/ca.pem", "hunter2");
  expect_refused({{"STOREAPI_REDIS_URL", tls_url}, {"STOREAPI_REDIS_CERT_FILE", certificates.client().certificate_file}},
                 2, "a client certificate needs both", "hunter2");
  // A key that is not the certificate's.
  expect_refused({{"STOREAPI_REDIS_URL", tls_url},
                  {"STOREAPI_REDIS_CERT_FILE", certificates.client().certificate_file},
                  {"STOREAPI_REDIS_KEY_FILE", certificates.server().key_file}},
                 2, "STOREAPI_REDIS_KEY_FILE: cannot use", "hunter2");
  expect_refused({{"STOREAPI_REDIS_URL", "redis://storeapi:hunter2@127.0.0.1:bad"}}, 2, "storeapi:***@127.0.0.1:bad",
                 "hunter2");
}

}  // namespace
}  // namespace storeapi::testing
