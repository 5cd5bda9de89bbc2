#pragma once
// The dispatcher's metrics (its /metrics, README "Metrics"): webhook attempts by outcome,
// commit-to-delivery lag, e-mails sent and failed, and the backlog, refreshed by the loop.
#include <cstdint>

#include "dispatch/jobs.hpp"
#include "dispatch/transfers.hpp"
#include "metrics/registry.hpp"

namespace storeapi::dispatch {

// 2xx, 4xx, 5xx (other statuses: "other"), or why no answer came: timeout, tls, connection.
const char* attempt_outcome(const TransferResult& result);

class DispatchMetrics {
 public:
  DispatchMetrics();
  void attempt(const TransferResult& result);
  // A webhook delivered (2xx) `lag_seconds` after its event was committed.
  void delivered(double lag_seconds) { lag_.observe(lag_seconds); }
  void email(bool sent) { (sent ? emails_sent_ : emails_failed_).inc(); }
  void backlog(const Backlog& b);
  // Where the outbox's last time slot ends (Unix seconds) and the width of a slot: writes
  // fail past the end, so an alert compares how far ahead it is with the width
  // (deploy/prometheus/storeapi-rules.yml).
  void outbox_slots(std::int64_t end_unix_seconds, std::int64_t width_seconds);

 private:
  metrics::Family<metrics::Counter>& attempts_;
  metrics::Histogram& lag_;
  metrics::Counter& emails_sent_;
  metrics::Counter& emails_failed_;
  metrics::Gauge& events_;
  metrics::Gauge& deliveries_;
  metrics::Gauge& emails_;
  metrics::Gauge& disabled_;
  metrics::Gauge& slots_end_;
  metrics::Gauge& slot_width_;
  Backlog shown_{};  // what the gauges hold (they add deltas)
};

}  // namespace storeapi::dispatch
