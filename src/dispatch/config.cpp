#include "dispatch/config.hpp"

#include "metrics/listen_setting.hpp"

#include "common/env.hpp"
#include "common/url_parts.hpp"
#include "db/conninfo.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace storeapi::dispatch {
namespace {

// A CA bundle must be a readable file holding at least one PEM certificate: a wrong path
// stops the start instead of failing every HTTPS delivery.
void check_ca_file(const char* setting, const char* path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path, "rb"), &std::fclose);
  std::string text;
  if (file) {
    char buf[16384];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, file.get())) text.append(buf, n);
  }
  if (!file || std::ferror(file.get()))
    throw env::SettingError(std::string(setting) + ": cannot read '" + path + "': " + std::strerror(errno));
  if (text.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    throw env::SettingError(std::string(setting) + ": '" + path + "' holds no PEM certificate");
}

}  // namespace

bool Config::smtp_requires_tls() const {
  if (!smtp_url) return false;
  switch (smtp_tls) {
    case SmtpTls::required: return true;
    case SmtpTls::off: return false;
    case SmtpTls::automatic: break;
  }
  // A relay on this host is reached without crossing a network.
  auto host = url::host(*smtp_url);
  auto address = host ? net::host_address(*host) : std::nullopt;
  return !(address && net::is_loopback(*address));
}

Config Config::from_env() {
  Config c;
  if (const char* v = env::get("STOREAPI_DATABASE_URL")) {
    db::check_conninfo_setting("STOREAPI_DATABASE_URL", c.database_url = v);
  } else {
    throw env::SettingError("STOREAPI_DATABASE_URL is not set");
  }
  if (const char* v = env::get("STOREAPI_SMTP_URL")) {
    // Checked here, not at the first mail: another scheme (http://, a bare host) would
    // fail every e-mail, each only in a log line.
    const std::string_view url(v);
    if (!url.starts_with("smtp://") && !url.starts_with("smtps://"))
      throw env::SettingError("STOREAPI_SMTP_URL: expected smtp://host:port or smtps://user:password@host:port");
    c.smtp_url = v;
  }
  if (const char* v = env::get("STOREAPI_SMTP_FROM")) c.smtp_from = v;
  for (auto [setting, file] : {std::pair{"STOREAPI_WEBHOOK_CA_FILE", &c.webhook_ca_file},
                                std::pair{"STOREAPI_SMTP_CA_FILE", &c.smtp_ca_file}}) {
    if (const char* v = env::get(setting)) {
      check_ca_file(setting, v);
      *file = v;
    }
  }
  if (const char* v = env::get("STOREAPI_SMTP_TLS")) {
    std::string_view mode(v);
    if (mode == "auto") c.smtp_tls = SmtpTls::automatic;
    else if (mode == "required") c.smtp_tls = SmtpTls::required;
    else if (mode == "off") c.smtp_tls = SmtpTls::off;
    else throw env::SettingError(std::string("STOREAPI_SMTP_TLS: expected auto, required or off, got '") + v + "'");
  }
  c.webhook_destinations = net::DestinationPolicy::from_env();
  if (const char* v = env::get("STOREAPI_WEBHOOK_RETRY_SCHEDULE")) {
    auto schedule = RetrySchedule::parse(v);
    if (!schedule)
      throw env::SettingError(
          std::string("STOREAPI_WEBHOOK_RETRY_SCHEDULE: expected comma-separated whole seconds, got '") + v + "'");
    c.retry_schedule = *schedule;
  }
  env::read_millis("STOREAPI_WEBHOOK_TIMEOUT_MS", c.webhook_timeout);
  env::read_millis("STOREAPI_SMTP_TIMEOUT_MS", c.smtp_timeout);
  env::read_millis("STOREAPI_DISPATCH_LEASE_MS", c.lease);
  env::read_millis("STOREAPI_DISPATCH_POLL_MS", c.poll_interval);
  env::read_millis("STOREAPI_SHUTDOWN_GRACE_MS", c.shutdown_grace);
  env::read_number<unsigned>("STOREAPI_DISPATCH_BATCH", c.batch_size, 1, 10'000);
  env::read_number<unsigned>("STOREAPI_DISPATCH_CONCURRENCY", c.concurrency, 1, 10'000);
  metrics::read_listen_setting("STOREAPI_DISPATCH_METRICS_LISTEN", c.metrics_listen);
  c.retention = Retention::from_env();
  if (c.lease <= c.webhook_timeout || c.lease <= c.smtp_timeout)
    throw env::SettingError(
        "STOREAPI_DISPATCH_LEASE_MS must exceed STOREAPI_WEBHOOK_TIMEOUT_MS and STOREAPI_SMTP_TIMEOUT_MS");
  return c;
}

}  // namespace storeapi::dispatch
