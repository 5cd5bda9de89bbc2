#include "common/env.hpp"
#include "dispatch/config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace storeapi::dispatch {
namespace {

// Config::from_env with STOREAPI_DATABASE_URL set and STOREAPI_WEBHOOK_CA_FILE as given
// (nullptr: unset); both are unset again afterwards.
class CaFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("storeapi-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    setenv("STOREAPI_DATABASE_URL", "postgresql:///storeapi", 1);
  }
  void TearDown() override {
    unsetenv("STOREAPI_DATABASE_URL");
    unsetenv("STOREAPI_WEBHOOK_CA_FILE");
    std::filesystem::remove_all(dir_);
  }

  std::optional<Config> load(const char* ca_file) {
    if (ca_file) setenv("STOREAPI_WEBHOOK_CA_FILE", ca_file, 1);
    else unsetenv("STOREAPI_WEBHOOK_CA_FILE");
    error_.clear();
    try {
      return Config::from_env();
    } catch (const env::SettingError& e) {
      error_ = e.what();
      return std::nullopt;
    }
  }

  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
  std::string error_;
};

TEST_F(CaFile, UnsetMeansTheSystemBundle) {
  auto config = load(nullptr);
  ASSERT_TRUE(config) << error_;
  EXPECT_FALSE(config->webhook_ca_file);
  config = load("");  // empty counts as unset, like every setting
  ASSERT_TRUE(config) << error_;
  EXPECT_FALSE(config->webhook_ca_file);
}

TEST_F(CaFile, AReadablePemBundleIsUsed) {
  std::string path = write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  auto config = load(path.c_str());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->webhook_ca_file, path);
}

TEST_F(CaFile, AMissingUnreadableOrEmptyFileStopsTheStart) {
  EXPECT_FALSE(load("/nonexistent/ca.pem"));
  EXPECT_EQ(error_, "STOREAPI_WEBHOOK_CA_FILE: cannot read '/nonexistent/ca.pem': No such file or directory");
  EXPECT_FALSE(load(dir_.c_str()));
  EXPECT_EQ(error_, "STOREAPI_WEBHOOK_CA_FILE: cannot read '" + dir_.string() + "': Is a directory");
  std::string key = write("server.key", "-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----\n");
  EXPECT_FALSE(load(key.c_str()));
  EXPECT_EQ(error_, "STOREAPI_WEBHOOK_CA_FILE: '" + key + "' holds no PEM certificate");
  EXPECT_EQ(error_.find('\n'), std::string::npos);
}

// The SMTP URL's scheme is checked at start (an http:// URL used to be accepted and fail
// every mail later). The message names the setting but never echoes the URL: it may hold
// a password.
TEST_F(CaFile, AnSmtpUrlOfAnotherSchemeStopsTheStart) {
  for (const char* bad : {"http://mail.example:25", "mail.example:25", "smtp:/x", "smtps:mail.example"}) {
    setenv("STOREAPI_SMTP_URL", bad, 1);
    EXPECT_FALSE(load(nullptr)) << bad;
    EXPECT_EQ(error_, "STOREAPI_SMTP_URL: expected smtp://host:port or smtps://user:password@host:port") << bad;
  }
  for (const char* good : {"smtp://127.0.0.1:8025", "smtps://user:secret@mail.example:465"}) {
    setenv("STOREAPI_SMTP_URL", good, 1);
    auto config = load(nullptr);
    ASSERT_TRUE(config) << good << ": " << error_;
    EXPECT_EQ(config->smtp_url, good);
  }
  unsetenv("STOREAPI_SMTP_URL");
}

// Whether mail goes over TLS, by STOREAPI_SMTP_TLS and the relay's host. Seen failing:
// with smtp_requires_tls returning false for every smtp:// URL (the former behaviour)
// AutoRequiresTlsExceptOnLoopback fails on the first remote relay.
class SmtpTlsSetting : public ::testing::Test {
 protected:
  void SetUp() override { setenv("STOREAPI_DATABASE_URL", "postgresql:///storeapi", 1); }
  void TearDown() override {
    for (const char* name : {"STOREAPI_DATABASE_URL", "STOREAPI_SMTP_URL", "STOREAPI_SMTP_TLS"}) unsetenv(name);
  }

  // nullopt when the configuration is refused (error_ says why).
  std::optional<bool> requires_tls(const char* url, const char* mode) {
    setenv("STOREAPI_SMTP_URL", url, 1);
    if (mode) setenv("STOREAPI_SMTP_TLS", mode, 1);
    else unsetenv("STOREAPI_SMTP_TLS");
    error_.clear();
    try {
      return Config::from_env().smtp_requires_tls();
    } catch (const env::SettingError& e) {
      error_ = e.what();
      return std::nullopt;
    }
  }

  std::string error_;
};

TEST_F(SmtpTlsSetting, AutoRequiresTlsExceptOnLoopback) {
  for (const char* remote : {"smtp://mail.example.com:587", "smtp://user:pw@10.0.0.5:25", "smtp://[2001:db8::25]:587",
                             "smtp://127.0.0.1.example.com:25"}) {
    EXPECT_EQ(requires_tls(remote, nullptr), true) << remote;
    EXPECT_EQ(requires_tls(remote, "auto"), true) << remote;
  }
  for (const char* local : {"smtp://127.0.0.1:25", "smtp://127.0.0.53:2525", "smtp://[::1]:25", "smtp://localhost:25",
                            "smtp://[::ffff:127.0.0.1]:25"})
    EXPECT_EQ(requires_tls(local, nullptr), false) << local;
}

TEST_F(SmtpTlsSetting, RequiredAndOffApplyEverywhere) {
  EXPECT_EQ(requires_tls("smtp://127.0.0.1:25", "required"), true);
  EXPECT_EQ(requires_tls("smtp://mail.example.com:587", "required"), true);
  EXPECT_EQ(requires_tls("smtp://mail.example.com:587", "off"), false);
}

TEST_F(SmtpTlsSetting, OtherValuesStopTheStart) {
  EXPECT_EQ(requires_tls("smtp://127.0.0.1:25", "yes"), std::nullopt);
  EXPECT_EQ(error_, "STOREAPI_SMTP_TLS: expected auto, required or off, got 'yes'");
}

// The retention settings: defaults, whole seconds in range, a slot no wider than the
// retention. Fails without Retention::from_env in Config::from_env (bad values accepted).
TEST(RetentionSettings, DefaultsAndValidation) {
  setenv("STOREAPI_DATABASE_URL", "postgresql:///storeapi", 1);
  Config config = Config::from_env();
  EXPECT_EQ(config.retention.keep, std::chrono::seconds(30 * 86400));
  EXPECT_EQ(config.retention.partition, std::chrono::seconds(86400));
  EXPECT_EQ(config.retention.ahead(), std::chrono::seconds(7 * 86400));

  setenv("STOREAPI_RETENTION_SECONDS", "3600", 1);
  setenv("STOREAPI_PARTITION_SECONDS", "600", 1);
  config = Config::from_env();
  EXPECT_EQ(config.retention.keep, std::chrono::seconds(3600));
  EXPECT_EQ(config.retention.partition, std::chrono::seconds(600));

  const auto refused = [] {
    try {
      Config::from_env();
    } catch (const env::SettingError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* bad : {"0", "-5", "30d", "1.5", "999999999999"}) {
    setenv("STOREAPI_RETENTION_SECONDS", bad, 1);
    EXPECT_NE(refused().find("STOREAPI_RETENTION_SECONDS"), std::string::npos) << bad;
  }
  setenv("STOREAPI_RETENTION_SECONDS", "3600", 1);
  setenv("STOREAPI_PARTITION_SECONDS", "7200", 1);
  EXPECT_NE(refused().find("must not exceed"), std::string::npos);
  unsetenv("STOREAPI_RETENTION_SECONDS");
  unsetenv("STOREAPI_PARTITION_SECONDS");
  unsetenv("STOREAPI_DATABASE_URL");
}

}  // namespace
}  // namespace storeapi::dispatch
