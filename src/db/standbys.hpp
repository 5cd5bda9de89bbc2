#pragma once
// The hot standbys of one core (STOREAPI_REPLICA_URLS): a pool of one connection to each,
// and how far each has replayed the primary's WAL, polled on that same connection every
// `poll` (one tiny query; never a query per request). A read may go to a standby only if
// THAT standby has replayed past the position it needs (pick()); a standby that is
// unreachable, promoted, or has not answered a poll for a while is left out until a poll
// says otherwise, polled with backoff meanwhile. docs/DECISIONS.md "Reads from standbys".
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "db/pool.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"
#include "metrics/series.hpp"
#include "runtime/event.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

// pg_last_wal_replay_lsn() and pg_is_in_recovery(), for the poll (prepared on every pool).
#define STOREAPI_REPLAY_POSITION_COLUMNS(X) X(replayed, text) /* null: not a standby */ X(in_recovery, boolean)
STOREAPI_DB_ROW(ReplayPosition, STOREAPI_REPLAY_POSITION_COLUMNS);
extern const Statement kReplayPosition;
// pg_current_wal_insert_lsn() on the primary: run after a write's Sync, it is at or after
// the write's commit record.
#define STOREAPI_WAL_INSERT_POSITION_COLUMNS(X) X(inserted, text)
STOREAPI_DB_ROW(WalInsertPosition, STOREAPI_WAL_INSERT_POSITION_COLUMNS);
extern const Statement kWalInsertPosition;

struct StandbyOptions {
  std::vector<std::string> urls;
  std::chrono::milliseconds poll{10};
  std::chrono::milliseconds statement_timeout{10'000};
};

class Standbys {
 public:
  Standbys(const StandbyOptions& options, std::span<const Statement> statements);
  ~Standbys();
  Standbys(const Standbys&) = delete;
  Standbys& operator=(const Standbys&) = delete;

  // Connects and starts polling; on the owning core's thread, inside its reactor.
  void start();

  // A standby whose last poll (on its current session, recent enough) saw it in recovery
  // with its replay at or past `lsn`; the standbys that qualify take turns. nullptr: none
  // does, read from the primary.
  Pool* pick(std::uint64_t lsn) noexcept;

  // Waits until every standby in use (the ones pick() may choose from: polled recently,
  // on their current session, in recovery) has replayed past `lsn`, looking again after
  // each poll, for at most `bound` (a standby that lags holds it that long).
  // A wait that does not end at once counts in storeapi_db_standby_waits_total.
  runtime::task<void> wait_replayed_everywhere(std::uint64_t lsn, std::chrono::milliseconds bound);

  // Every standby has had its first poll since its connection's first attempt: whether it
  // is in use is known. Until then a write could not tell that a standby it must wait for
  // is there (it would not wait), so the node listens only once this holds. A first poll
  // that hangs holds it back at most as long as an unanswered standby stays in use (1 s
  // at the default poll interval).
  bool settled() const noexcept;
  // Waits until settled() holds, or `until`.
  runtime::task<void> settle(runtime::Clock::time_point until);

 private:
  struct Standby;
  runtime::task<void> poll(Standby& standby);
  bool replayed_everywhere(std::uint64_t lsn) const noexcept;
  // When the first standby in use now stops being in use for want of a fresh poll.
  runtime::Clock::time_point next_stale_at() const noexcept;

  std::chrono::milliseconds poll_interval_;
  runtime::Clock::time_point started_at_{};
  metrics::Counter& waits_;
  std::vector<std::unique_ptr<Standby>> standbys_;
  std::size_t turn_ = 0;
  runtime::Event polled_;  // a poll ended: what a standby says may have changed
};

}  // namespace storeapi::db
