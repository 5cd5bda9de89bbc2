#pragma once
// Wakes the dispatchers (NOTIFY storeapi_events) after writes committed outbox rows, and
// costs no commit of its own while writes keep coming.
//
// Why not NOTIFY inside every write's transaction: a notifying commit holds a
// database-wide lock until its WAL is flushed, so notifying writes commit one at a time,
// with no group commit; measured, that cut the stock benchmark's throughput by 2.7x. So
// at most one write per kMinInterval on each core carries the NOTIFY (kNotifyDispatchers,
// in the write's own transaction: one commit, and the NOTIFY reaches the dispatchers with
// that commit); a busy core's other writes commit without it and are announced by the
// next carrier, whose commit follows theirs. Only when no write comes to carry it (the
// idle tail after a burst, or a carrier that failed: its NOTIFY went with its
// transaction) does the core send the NOTIFY from a transaction of its own
// (kWakeDispatchers, asynchronous commit: a wake-up needs no durability). Dispatchers
// poll as well, so a lost wake-up only delays.
#include <chrono>

#include "db/pool.hpp"
#include "db/statement.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// () → nothing; api.wake_dispatchers(): the NOTIFY in a transaction of its own.
extern const db::Statement kWakeDispatchers;
// () → nothing; api.notify_dispatchers(): the NOTIFY inside the write's transaction
// (added to the write's unit before its statement, without a Sync between).
extern const db::Statement kNotifyDispatchers;

// When the NOTIFY goes out, without the clock or the database: DispatcherWake's decisions,
// kept apart so that they can be tested on their own.
class WakeTurns {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WakeTurns(Clock::duration interval) : interval_(interval) {}

  // A write is about to be sent: whether it carries the NOTIFY. True at most once per
  // interval; the carrier's commit comes after every write answered so far, so it takes
  // them over.
  bool take_turn(Clock::time_point now);
  // A write ended: `carried` what take_turn said for it, `committed` whether its
  // transaction committed (it answered), `outbox_rows` whether it committed events or
  // e-mails. Returns true when writes now wait for a wake-up of their own: a write that
  // did not carry it, or a carrier that failed (its NOTIFY went with its transaction)
  // after taking over others.
  bool after_write(bool carried, bool committed, bool outbox_rows);

  // Whether committed outbox rows wait for a NOTIFY.
  bool uncovered() const noexcept { return uncovered_; }
  // When the separate wake-up goes out if no write carried it by then: a whole interval
  // after a write was next allowed to carry it. So under load, when a write comes at
  // least once per interval, the separate one is never sent.
  Clock::time_point send_due() const noexcept { return next_turn_ + interval_; }
  // The separate wake-up is being sent at `now`: it covers every write answered so far.
  void sent(Clock::time_point now);

 private:
  Clock::duration interval_;
  Clock::time_point next_turn_{};
  bool uncovered_ = false;
  bool carrier_took_over_ = false;  // the latest carrier took over uncovered writes
};

class DispatcherWake {
 public:
  static constexpr std::chrono::milliseconds kMinInterval{25};

  explicit DispatcherWake(db::Pool& pool) : pool_(pool) {}

  // A write's unit is being built: true when it is to carry the NOTIFY (the caller adds
  // kNotifyDispatchers to the unit, before the write's statement).
  bool take_turn() { return turns_.take_turn(WakeTurns::Clock::now()); }
  // A write ended (see WakeTurns::after_write). Never waits.
  void after_write(bool carried, bool committed, bool outbox_rows);

 private:
  runtime::task<void> send();

  db::Pool& pool_;
  WakeTurns turns_{kMinInterval};
  bool sending_ = false;
};

}  // namespace storeapi::api
