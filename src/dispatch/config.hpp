#pragma once
// storeapi-dispatch settings, read once from the environment (README "Dispatcher").
#include "common/retention.hpp"
#include "dispatch/retry_schedule.hpp"
#include "runtime/net.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace storeapi::dispatch {

// The application_name of its database connections (pg_stat_activity).
inline constexpr const char* kApplicationName = "storeapi-dispatch";

struct Config {
  std::string database_url;                          // STOREAPI_DATABASE_URL (required)
  std::optional<std::string> smtp_url;               // STOREAPI_SMTP_URL; unset = mail waits
  std::optional<std::string> smtp_from;              // STOREAPI_SMTP_FROM; default no-reply@<store host>
  // PEM bundle of the CAs that webhook endpoints' certificates must chain to, instead of
  // the system's (private CAs); unset = libcurl's system bundle. Verification is always on.
  std::optional<std::string> webhook_ca_file;        // STOREAPI_WEBHOOK_CA_FILE
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

  // Reads the environment; on a bad value returns nullopt and sets `error` to one line.
  static std::optional<Config> from_env(std::string& error);
};

}  // namespace storeapi::dispatch
