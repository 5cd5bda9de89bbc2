#pragma once
// One libpq connection in pipeline mode, driven by one coroutine that owns its socket:
// it connects (with backoff), prepares every statement, then polls the socket and hands
// each result to the unit at the head of the in-flight queue. At most one io_uring
// operation is in flight on the socket, and the connection is only closed by the driver
// after that operation completed (docs/PITFALLS.md: close() does not cancel io_uring operations).
#include <libpq-fe.h>

#include <cstddef>
#include <string>

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

  void start();
  bool ready() const noexcept { return ready_ && !broken_; }
  // Its first connection attempt has ended, either way.
  bool attempted() const noexcept { return attempted_; }
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

  Pool& pool_;
  unsigned id_;
  PGconn* conn_ = nullptr;
  bool ready_ = false;
  bool attempted_ = false;
  bool broken_ = false;
  bool want_write_ = false;
  bool logged_failure_ = false;
  std::string last_error_;
  runtime::Poll* polling_ = nullptr;  // the driver's pending poll, to wake it early

  Unit* head_ = nullptr;  // in-flight units, oldest first
  Unit* tail_ = nullptr;
  std::size_t inflight_ = 0;
};

}  // namespace storeapi::db
