#pragma once
// The dispatcher's side of the outbox tables: fan-out, claiming with leases, recording
// outcomes. One blocking libpqxx connection; every statement is short. (The NOTIFY
// wake-ups come on a connection of their own: dispatch/wakeups.hpp.)
#include "dispatch/jobs.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace storeapi::dispatch {

class Outbox {
 public:
  // Connects and prepares the statements. Throws pqxx exceptions when the database
  // cannot be reached.
  Outbox(const std::string& database_url, std::chrono::milliseconds lease);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Turns up to `limit` events not yet fanned out (oldest first, other dispatchers' rows
  // skipped) into one pending delivery per enabled endpoint of the store that subscribes
  // to the type. Returns how many events it handled.
  std::size_t fan_out(std::size_t limit);

  // Claims up to `limit` due deliveries: each gets its attempt number and a lease (its
  // next_attempt_at moves `lease` ahead), committed before any request is sent. An
  // earlier attempt whose dispatcher died without recording it is recorded as unknown.
  std::vector<DeliveryJob> claim_deliveries(std::size_t limit);

  // The same for due e-mails.
  std::vector<NotificationJob> claim_notifications(std::size_t limit);

  // Records the outcomes in one transaction. Returns each delivery's status afterwards
  // ("succeeded", "pending", "failed"; "" when a later attempt had superseded it).
  std::vector<std::string> record(std::span<const DeliveryOutcome> deliveries,
                                  std::span<const NotificationOutcome> notifications);

  // Time until the earliest pending work (events to fan out, deliveries, and e-mails when
  // `with_notifications`) is due: negative when overdue, nullopt when there is none.
  std::optional<std::chrono::milliseconds> next_due(bool with_notifications);

  // Counts of what is waiting (storeapi_dispatch_backlog and _endpoints_disabled).
  Backlog backlog();

 private:
  struct Session;  // the libpqxx connection, kept out of this header

  std::unique_ptr<Session> session_;
  long long lease_ms_;
};

}  // namespace storeapi::dispatch
