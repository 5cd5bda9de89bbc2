#include "dispatch/config.hpp"

#include "common/env.hpp"

namespace storeapi::dispatch {

std::optional<Config> Config::from_env(std::string& error) {
  Config c;
  if (const char* v = env::get("STOREAPI_DATABASE_URL")) {
    c.database_url = v;
  } else {
    error = "STOREAPI_DATABASE_URL is not set";
    return std::nullopt;
  }
  if (const char* v = env::get("STOREAPI_SMTP_URL")) c.smtp_url = v;
  if (const char* v = env::get("STOREAPI_SMTP_FROM")) c.smtp_from = v;
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
      !env::read_number<unsigned>("STOREAPI_DISPATCH_CONCURRENCY", c.concurrency, 1, 10'000, error))
    return std::nullopt;
  if (c.lease <= c.webhook_timeout || c.lease <= c.smtp_timeout) {
    error = "STOREAPI_DISPATCH_LEASE_MS must exceed STOREAPI_WEBHOOK_TIMEOUT_MS and STOREAPI_SMTP_TIMEOUT_MS";
    return std::nullopt;
  }
  return c;
}

}  // namespace storeapi::dispatch
