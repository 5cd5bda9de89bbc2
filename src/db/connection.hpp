#pragma once
// One libpq connection in pipeline mode, driven by one coroutine that owns its socket:
// it connects (with backoff), prepares every statement, then polls the socket and hands
// each result to the unit at the head of the in-flight queue. At most one io_uring
// operation is in flight on the socket, and the connection is only closed by the driver
// after that operation completed (docs/PITFALLS.md: close() does not cancel io_uring operations).
#include <libpq-fe.h>

#include <cstddef>
#include <optional>
#include <string>

#include "db/connect.hpp"
#include "db/unit.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

class Pool;

class PgConnection {
 public:
  PgConnection(Pool& pool, unsigned id);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Its life (docs/ARCHITECTURE.md §4a); legal() lists the transitions, set_state checks
  // them:
  //   starting → ready | down   its first attempt succeeded or failed
  //   down     → ready | down   the next attempts, after a backoff
  //   ready    → broken         a send or read failed, an answer is overdue, a silent
  //                             connection's host accepts no new one, or reset()
  //   broken   → down           the driver closed it and failed its units (503)
  enum class State { starting, down, ready, broken };
  static constexpr bool legal(State from, State to) noexcept {
    switch (from) {
      case State::starting:
      case State::down: return to == State::ready || to == State::down;
      case State::ready: return to == State::broken;
      case State::broken: return to == State::down;
    }
    return false;
  }

  void start();
  bool ready() const noexcept { return state_ == State::ready; }
  // Its first connection attempt has ended, either way.
  bool attempted() const noexcept { return state_ != State::starting; }
  std::size_t inflight() const noexcept { return inflight_; }

  // Sends the unit's statements and its Sync (libpq flushes at each Sync); what the socket
  // does not take at once is written when it becomes writable.
  void submit(Unit& unit);
  // Drops the connection and reconnects (e.g. after "cached plan must not change result
  // type", to prepare the statements afresh).
  void reset();

 private:
  runtime::task<void> drive();
  runtime::task<bool> establish();
  void read_results();
  void finish_head(Outcome outcome);
  void close_and_fail_inflight();
  void wake_driver();
  void set_state(State next) noexcept;
  // ready → broken, with why for the log; nothing if it is no longer ready.
  void break_off(std::string why);
  // A unit is outstanding and nothing arrived for the pool's `silence`: true once the
  // connection is known dead (its host accepts no new connection either).
  runtime::task<bool> silent_and_dead();
  // Since when an answer is owed: the ping's, else the oldest unit's; none when idle.
  std::optional<runtime::Clock::time_point> owed_since() const noexcept;
  // Idle (nothing owed) and nothing received for half the silence bound: time to ping.
  bool quiet_and_idle() const noexcept;
  // An idle connection's check (docs/DEPLOY.md "Failure detection"): a lone Sync, whose
  // answer the silence check then watches like a unit's, so that a database frozen
  // behind a live kernel (keepalives answered) is noticed with no request in flight and
  // /readyz drains an idle node too.
  void ping();
  ConnectOptions connect_options() const;

  Pool& pool_;
  unsigned id_;
  PGconn* conn_ = nullptr;
  State state_ = State::starting;
  HostTarget host_;                      // the host it reached, for the silence check
  runtime::Clock::time_point last_received_{};
  bool pinging_ = false;  // a ping's Sync is owed; units sent after it wait behind it
  runtime::Clock::time_point ping_sent_at_{};
  bool want_write_ = false;
  bool logged_failure_ = false;
  std::string last_error_;
  runtime::Poll* polling_ = nullptr;  // the driver's pending poll, to wake it early

  Unit* head_ = nullptr;  // in-flight units, oldest first
  Unit* tail_ = nullptr;
  std::size_t inflight_ = 0;
};

}  // namespace storeapi::db
