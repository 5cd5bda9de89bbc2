#pragma once
// The dispatcher's loop: fan out new events, claim due deliveries and e-mails, run them
// concurrently through curl, record every outcome, sleep until the next wake-up
// (dispatch/wakeups.hpp), due retry or poll. Losing the database connection keeps
// transfers going and their outcomes in memory until it is back.
#include "common/backoff.hpp"
#include "dispatch/config.hpp"
#include "dispatch/dispatch_metrics.hpp"
#include "dispatch/jobs.hpp"
#include "dispatch/outbox.hpp"
#include "dispatch/partitions.hpp"
#include "dispatch/transfers.hpp"
#include "dispatch/wakeups.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <unordered_map>
#include <variant>
#include <vector>

namespace storeapi::dispatch {

class Dispatcher {
 public:
  explicit Dispatcher(Config config);

  // Runs until `stop_fd` becomes readable (a signalfd for SIGTERM/SIGINT), then stops
  // claiming, lets transfers in flight finish within the shutdown grace, records their
  // outcomes and returns. Work still unrecorded then is retried by any dispatcher once
  // its lease runs out.
  void run(int stop_fd);

  // Whether it LISTENs for wake-ups now (storeapi_dispatch_listening); any thread.
  bool listening() const noexcept { return wakeups_.listening(); }

 private:
  using Clock = std::chrono::steady_clock;

  struct InFlight {
    std::variant<DeliveryJob, NotificationJob> job;
    timefmt::Micros started_at = 0;
  };

  // Runs one database step; on failure logs, drops the connection and schedules a
  // reconnect with backoff. False when it failed.
  template <typename Step>
  bool with_database(Step step);
  void connect_if_due(Clock::time_point now);
  // Any wake-up that arrived makes a pass due now.
  void take_wakeups(Clock::time_point now);
  void pass(Clock::time_point now);
  void start_delivery(DeliveryJob job);
  void start_notification(NotificationJob job);
  void collect_finished();
  void on_delivery_finished(const DeliveryJob& job, timefmt::Micros started_at, const TransferResult& result);
  void on_notification_finished(const NotificationJob& job, const TransferResult& result);
  void record(Clock::time_point now);
  // Creates the outbox's slots ahead and drops the expired ones when due.
  void keep_partitions(Clock::time_point now);
  std::size_t room() const;

  Config config_;
  Transfers transfers_;
  Wakeups wakeups_;
  std::unique_ptr<Outbox> outbox_;
  std::unordered_map<std::uint64_t, InFlight> in_flight_;
  std::uint64_t next_tag_ = 1;
  std::vector<DeliveryOutcome> unrecorded_deliveries_;
  std::vector<NotificationOutcome> unrecorded_notifications_;
  std::mt19937_64 rng_;
  Clock::time_point pass_at_;        // when to look for work next
  bool more_waiting_ = false;        // the last pass hit the concurrency limit
  Clock::time_point connect_at_;
  Backoff reconnect_backoff_;
  DispatchMetrics metrics_;
  Clock::time_point backlog_at_;  // when to count the backlog next
  Partitions partitions_;
  Clock::time_point partitions_at_;  // when to keep the partitions next
};

}  // namespace storeapi::dispatch
