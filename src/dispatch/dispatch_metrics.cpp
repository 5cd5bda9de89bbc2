#include "dispatch/dispatch_metrics.hpp"

#include <curl/curl.h>

#include "metrics/registry.hpp"

namespace storeapi::dispatch {
namespace {

metrics::Registry& registry() { return metrics::Registry::process(); }

// Commit-to-delivery lag: from a fraction of a second to a day of retries.
constexpr double kLagBuckets[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400};

metrics::Gauge& backlog_gauge(const char* what) {
  return registry()
      .gauge("storeapi_dispatch_backlog", "Work waiting: events not fanned out, deliveries and e-mails due.", {"kind"})
      .with({what});
}

metrics::Counter& emails(const char* result) {
  return registry().counter("storeapi_dispatch_emails_total", "E-mail sending attempts, by result.", {"result"}).with({result});
}

}  // namespace

const char* attempt_outcome(const TransferResult& r) {
  if (r.completed) {
    if (r.response_code >= 200 && r.response_code <= 299) return "2xx";
    if (r.response_code >= 400 && r.response_code <= 499) return "4xx";
    if (r.response_code >= 500 && r.response_code <= 599) return "5xx";
    return "other";
  }
  if (r.refused) return "refused";
  switch (static_cast<CURLcode>(r.curl_code)) {
    case CURLE_OK: return "other";  // refused before sending (a secret that cannot sign)
    case CURLE_OPERATION_TIMEDOUT: return "timeout";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return "tls";
    default: return "connection";
  }
}

DispatchMetrics::DispatchMetrics()
    : attempts_(registry().counter("storeapi_dispatch_webhook_attempts_total",
                                   "Webhook delivery attempts, by outcome (2xx, 4xx, 5xx, other, timeout, tls, connection, refused).",
                                   {"outcome"})),
      lag_(registry()
               .histogram("storeapi_dispatch_delivery_lag_seconds",
                          "From an event's commit to its successful delivery (retries included).", {}, kLagBuckets)
               .with({})),
      emails_sent_(emails("sent")),
      emails_failed_(emails("failed")),
      events_(backlog_gauge("events_not_fanned_out")),
      deliveries_(backlog_gauge("deliveries_due")),
      emails_(backlog_gauge("emails_due")),
      disabled_(registry()
                    .gauge("storeapi_dispatch_endpoints_disabled", "Webhook endpoints disabled (by hand or failing).")
                    .with({})),
      slots_end_(registry()
                     .gauge("storeapi_dispatch_outbox_slots_end_timestamp_seconds",
                            "Where the outbox's last time slot ends (Unix time): writes fail past it.")
                     .with({})),
      slot_width_(registry()
                      .gauge("storeapi_dispatch_outbox_slot_width_seconds",
                             "Width of the outbox's time slots (STOREAPI_PARTITION_SECONDS).")
                      .with({})) {
  for (const char* outcome : {"2xx", "4xx", "5xx", "other", "timeout", "tls", "connection", "refused"})
    attempts_.with({outcome});  // every outcome shows, at 0, from the first scrape
}

void DispatchMetrics::attempt(const TransferResult& result) { attempts_.with({attempt_outcome(result)}).inc(); }

void DispatchMetrics::backlog(const Backlog& b) {
  events_.add(b.events_not_fanned_out - shown_.events_not_fanned_out);
  deliveries_.add(b.deliveries_due - shown_.deliveries_due);
  emails_.add(b.emails_due - shown_.emails_due);
  disabled_.add(b.endpoints_disabled - shown_.endpoints_disabled);
  shown_ = b;
}

void DispatchMetrics::outbox_slots(std::int64_t end_unix_seconds, std::int64_t width_seconds) {
  slots_end_.add(end_unix_seconds - slots_end_.value());
  slot_width_.add(width_seconds - slot_width_.value());
}

}  // namespace storeapi::dispatch
