#pragma once
// storeapi-dispatch settings, read once from the environment (README "Dispatcher").
#include "common/ip_networks.hpp"
#include "common/retention.hpp"
#include "dispatch/retry_schedule.hpp"
#include "runtime/net.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace storeapi::dispatch {

// The application_name of its database connections (pg_stat_activity).
inline constexpr const char* kApplicationName = "storeapi-dispatch";

// Whether an smtp:// relay must upgrade to TLS with STARTTLS (smtps:// is TLS throughout).
enum class SmtpTls {
  automatic,  // "auto": required, except to a relay on loopback (127.0.0.0/8, ::1, localhost)
  required,   // also on loopback
  off,        // never asked for: the mail and any SMTP password cross the network in clear
};

struct Config {
  std::string database_url;                          // STOREAPI_DATABASE_URL (required)
  std::optional<std::string> smtp_url;               // STOREAPI_SMTP_URL; unset = mail waits
  std::optional<std::string> smtp_from;              // STOREAPI_SMTP_FROM; default no-reply@<store host>
  SmtpTls smtp_tls = SmtpTls::automatic;             // STOREAPI_SMTP_TLS
  // PEM bundle of the CAs the SMTP relay's certificate must chain to, instead of the
  // system's; unset = the system's. Verification is always on where TLS is used.
  std::optional<std::string> smtp_ca_file;           // STOREAPI_SMTP_CA_FILE
  // PEM bundle of the CAs that webhook endpoints' certificates must chain to, instead of
  // the system's (private CAs); unset = libcurl's system bundle. Verification is always on.
  std::optional<std::string> webhook_ca_file;        // STOREAPI_WEBHOOK_CA_FILE
  // The special-purpose networks webhooks may reach nonetheless (common/ip_networks.hpp).
  net::DestinationPolicy webhook_destinations;       // STOREAPI_WEBHOOK_ALLOW_NETWORKS
  RetrySchedule retry_schedule = RetrySchedule::standard();  // STOREAPI_WEBHOOK_RETRY_SCHEDULE
  std::chrono::milliseconds webhook_timeout{10'000};  // STOREAPI_WEBHOOK_TIMEOUT_MS
  std::chrono::milliseconds smtp_timeout{30'000};     // STOREAPI_SMTP_TIMEOUT_MS
  // How long a claimed delivery or e-mail stays reserved for its dispatcher; must exceed
  // both timeouts, so only a dead (or cut-off) dispatcher's work is ever taken over.
  std::chrono::milliseconds lease{60'000};            // STOREAPI_DISPATCH_LEASE_MS
  // Safety net for a missed NOTIFY (e.g. during a reconnect); wake-ups come from NOTIFY.
  std::chrono::milliseconds poll_interval{5'000};     // STOREAPI_DISPATCH_POLL_MS
  std::chrono::milliseconds shutdown_grace{10'000};   // STOREAPI_SHUTDOWN_GRACE_MS
  unsigned batch_size = 100;                          // STOREAPI_DISPATCH_BATCH
  unsigned concurrency = 64;                          // STOREAPI_DISPATCH_CONCURRENCY
  // STOREAPI_DISPATCH_METRICS_LISTEN: where its /metrics is served; nullopt ("off"): nowhere.
  std::optional<runtime::ListenAddress> metrics_listen = runtime::ListenAddress{"127.0.0.1", 9465};
  // How long the outbox is kept and the slots it expires by (common/retention.hpp).
  Retention retention;  // STOREAPI_RETENTION_SECONDS, STOREAPI_PARTITION_SECONDS

  // Whether mail to the configured relay must go over TLS: smtps://, or smtp:// with
  // STARTTLS as smtp_tls says.
  bool smtp_requires_tls() const;

  // Reads the environment; a bad value throws env::SettingError (one line naming it).
  static Config from_env();
};

}  // namespace storeapi::dispatch
