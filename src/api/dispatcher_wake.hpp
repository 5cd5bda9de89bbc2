#pragma once
// Wakes the dispatchers (NOTIFY storeapi_events) after writes committed outbox rows.
//
// Why not NOTIFY inside the write's transaction: a notifying commit holds a database-wide
// lock until its WAL is flushed, so notifying writes commit one at a time, with no group
// commit; measured, that cut the stock benchmark's throughput by 2.7x. Instead each core
// sends the NOTIFY from a transaction of its own (asynchronous commit: a wake-up needs no
// durability), after the write committed, with at most one in flight and at least
// kMinInterval between two: writes that commit meanwhile fold into the next one, so a
// busy core sends at most 40 a second. Dispatchers poll as well, so a lost wake-up only
// delays.
#include <chrono>

#include "db/pool.hpp"
#include "db/statement.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

// () → nothing; api.wake_dispatchers().
extern const db::Statement kWakeDispatchers;

class DispatcherWake {
 public:
  static constexpr std::chrono::milliseconds kMinInterval{25};

  explicit DispatcherWake(db::Pool& pool) : pool_(pool) {}

  // A write committed outbox rows. Never waits.
  void wake();

 private:
  runtime::task<void> send();

  db::Pool& pool_;
  bool sending_ = false;
  bool pending_ = false;
};

}  // namespace storeapi::api
