#include "dispatch/config.hpp"

#include "metrics/listen_setting.hpp"

#include "common/env.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace storeapi::dispatch {
namespace {

// A CA bundle must be a readable file holding at least one PEM certificate: a wrong path
// stops the start instead of failing every HTTPS delivery.
bool check_ca_file(const char* path, std::string& error) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path, "rb"), &std::fclose);
  std::string text;
  if (file) {
    char buf[16384];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, file.get())) text.append(buf, n);
  }
  if (!file || std::ferror(file.get())) {
    error = std::string("STOREAPI_WEBHOOK_CA_FILE: cannot read '") + path + "': " + std::strerror(errno);
    return false;
  }
  if (text.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    error = std::string("STOREAPI_WEBHOOK_CA_FILE: '") + path + "' holds no PEM certificate";
    return false;
  }
  return true;
}

}  // namespace

std::optional<Config> Config::from_env(std::string& error) {
  Config c;
  if (const char* v = env::get("STOREAPI_DATABASE_URL")) {
    c.database_url = v;
  } else {
    error = "STOREAPI_DATABASE_URL is not set";
    return std::nullopt;
  }
  if (const char* v = env::get("STOREAPI_SMTP_URL")) {
    // Checked here, not at the first mail: another scheme (http://, a bare host) would
    // fail every e-mail, each only in a log line.
    const std::string_view url(v);
    if (!url.starts_with("smtp://") && !url.starts_with("smtps://")) {
      error = "STOREAPI_SMTP_URL: expected smtp://host:port or smtps://user:password@host:port";
      return std::nullopt;
    }
    c.smtp_url = v;
  }
  if (const char* v = env::get("STOREAPI_SMTP_FROM")) c.smtp_from = v;
  if (const char* v = env::get("STOREAPI_WEBHOOK_CA_FILE")) {
    if (!check_ca_file(v, error)) return std::nullopt;
    c.webhook_ca_file = v;
  }
  if (const char* v = env::get("STOREAPI_WEBHOOK_RETRY_SCHEDULE")) {
    auto schedule = RetrySchedule::parse(v);
    if (!schedule) {
      error = std::string("STOREAPI_WEBHOOK_RETRY_SCHEDULE: expected comma-separated whole seconds, got '") + v + "'";
      return std::nullopt;
    }
    c.retry_schedule = *schedule;
  }
  if (!env::read_millis("STOREAPI_WEBHOOK_TIMEOUT_MS", c.webhook_timeout, error) ||
      !env::read_millis("STOREAPI_SMTP_TIMEOUT_MS", c.smtp_timeout, error) ||
      !env::read_millis("STOREAPI_DISPATCH_LEASE_MS", c.lease, error) ||
      !env::read_millis("STOREAPI_DISPATCH_POLL_MS", c.poll_interval, error) ||
      !env::read_millis("STOREAPI_SHUTDOWN_GRACE_MS", c.shutdown_grace, error) ||
      !env::read_number<unsigned>("STOREAPI_DISPATCH_BATCH", c.batch_size, 1, 10'000, error) ||
      !env::read_number<unsigned>("STOREAPI_DISPATCH_CONCURRENCY", c.concurrency, 1, 10'000, error) ||
      !metrics::read_listen_setting("STOREAPI_DISPATCH_METRICS_LISTEN", c.metrics_listen, error))
    return std::nullopt;
  if (c.lease <= c.webhook_timeout || c.lease <= c.smtp_timeout) {
    error = "STOREAPI_DISPATCH_LEASE_MS must exceed STOREAPI_WEBHOOK_TIMEOUT_MS and STOREAPI_SMTP_TIMEOUT_MS";
    return std::nullopt;
  }
  return c;
}

}  // namespace storeapi::dispatch
