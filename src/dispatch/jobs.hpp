#pragma once
// The work a dispatcher claims from the outbox and the outcomes it records back.
#include "common/time.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::dispatch {

// One attempt of one event to one endpoint.
struct DeliveryJob {
  std::string store_id;
  std::string delivery_id;
  std::string message_id;            // "evt_<32 hex>", the payload's id: webhook-id
  std::string url;
  std::vector<std::string> secrets;  // the current one, then the previous one while a rotation lasts
  std::string payload;               // the event JSON: the exact bytes sent and signed
  int attempt = 0;                   // counted over the delivery's whole life
  int round_attempt = 0;             // counted from the start of the current schedule round
  timefmt::Micros event_created_at = 0;  // the event's commit time: delivery lag is measured from it
  std::string trace_id;  // of the request that wrote the event (common/trace_context.hpp); empty when none
};

// One attempt to send one e-mail.
struct NotificationJob {
  std::string store_id;
  std::string id;
  std::string kind;           // customer | owner
  std::string template_name;
  std::string recipient;
  std::string locale;
  std::string data;           // JSON object
  int attempt = 0;
  std::string store_name;
  std::string store_url;
  std::string owner_email;
  std::string trace_id;  // of the request that queued it (common/trace_context.hpp); empty when none
  timefmt::Micros created_at = 0;  // its partition key (sql/033_outbox_partitions.sql)
};

struct DeliveryOutcome {
  std::string store_id;
  std::string delivery_id;
  int attempt = 0;
  timefmt::Micros attempted_at = 0;
  std::optional<int> status;           // HTTP status; nullopt when no response came
  int latency_ms = 0;
  std::optional<std::string> response;  // first bytes of the answer
  std::optional<std::string> error;     // why no response, or why it counts as failed
  std::optional<std::chrono::milliseconds> retry_in;  // after a failure; nullopt = give up
  std::string trace_id;  // the job's, for the log lines about it (not recorded)
  timefmt::Micros event_created_at = 0;  // the job's: the delivery's partition key
};

struct Backlog {
  std::int64_t events_not_fanned_out = 0;
  std::int64_t deliveries_due = 0;
  std::int64_t emails_due = 0;
  std::int64_t endpoints_disabled = 0;
};

struct NotificationOutcome {
  std::string store_id;
  std::string id;
  int attempt = 0;
  bool sent = false;
  std::string error;
  std::optional<std::chrono::milliseconds> retry_in;  // after a failure; nullopt = give up
  timefmt::Micros created_at = 0;  // the job's: the notification's partition key
};

}  // namespace storeapi::dispatch
