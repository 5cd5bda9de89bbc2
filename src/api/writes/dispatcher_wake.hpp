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
#include "runtime/reactor.hpp"
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
  // Inline: a write reports its end without entering dispatcher_wake.cpp (WakeTurn).
  bool after_write(bool carried, bool committed, bool outbox_rows) noexcept {
    if (carried ? !committed && carrier_took_over_ : committed && outbox_rows) uncovered_ = true;
    return uncovered_;
  }

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

class DispatcherWake;

// A write's turn (DispatcherWake::take_turn), taken once when its unit is built: whether
// it carries the NOTIFY. The write carries it down and tells it how it ended once its
// statement's result is known. A default one is a write that announces nothing (a stored
// rejection).
class WakeTurn {
 public:
  WakeTurn() = default;

  bool carries() const noexcept { return carries_; }
  // The statement the write's unit runs first, in the write's transaction: the NOTIFY
  // when the write carries it, else none (nullptr).
  const db::Statement* notify() const noexcept { return carries_ ? &kNotifyDispatchers : nullptr; }
  // The write ended (see WakeTurns::after_write). Never waits, and does not call into
  // the sender: when a wake-up of its own is now due, the core starts it at the end of
  // its loop iteration.
  inline void ended(bool committed, bool outbox_rows) noexcept;

 private:
  friend class DispatcherWake;
  WakeTurn(DispatcherWake& wake, bool carries) noexcept : wake_(&wake), carries_(carries) {}

  DispatcherWake* wake_ = nullptr;
  bool carries_ = false;
};

class DispatcherWake {
 public:
  static constexpr std::chrono::milliseconds kMinInterval{25};

  explicit DispatcherWake(db::Pool& pool) : pool_(pool) {}
  ~DispatcherWake();
  DispatcherWake(const DispatcherWake&) = delete;
  DispatcherWake& operator=(const DispatcherWake&) = delete;

  // A write's unit is being built: its turn, which says whether it carries the NOTIFY
  // (the caller adds WakeTurn::notify() to the unit before the write's statement).
  WakeTurn take_turn();

 private:
  friend class WakeTurn;
  void ended(bool carried, bool committed, bool outbox_rows) noexcept {
    if (!turns_.after_write(carried, committed, outbox_rows) || sending_) return;
    sending_ = true;
    runtime::Reactor::current().at_iteration_end(start_sending_);
  }
  static void start_sending(runtime::IterationEnd* hook);
  runtime::task<void> send();

  struct StartSending : runtime::IterationEnd {
    DispatcherWake* wake;
  };

  db::Pool& pool_;
  WakeTurns turns_{kMinInterval};
  bool sending_ = false;  // the sender runs, or the core starts it at its iteration's end
  StartSending start_sending_{{&DispatcherWake::start_sending}, this};
};

void WakeTurn::ended(bool committed, bool outbox_rows) noexcept {
  if (wake_) wake_->ended(carries_, committed, outbox_rows);
}

}  // namespace storeapi::api
