#pragma once
// The database pool of one core: a few libpq connections in non-blocking pipeline mode,
// their socket readiness watched through io_uring. Work goes to the least-loaded ready
// connection; in-flight units per connection are bounded, past the bound units wait in a
// bounded queue, past the queue they are refused (503). When the database goes away,
// in-flight and queued units fail at once (503) and connections come back with backoff,
// preparing their statements again. A session that refuses writes (SQLSTATE 25006: the
// server is no longer the primary) is replaced, and its unit run once more on the fresh one.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "db/pool_metrics.hpp"
#include "db/statement.hpp"
#include "db/unit.hpp"
#include "runtime/event.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

// How much longer than statement_timeout an answer may take to come back.
inline constexpr std::chrono::milliseconds kReplyMargin{1'000};

struct PoolOptions {
  std::string url;
  std::string label = "database";  // names it in the log ("standby 1" for a replica)
  unsigned connections = 2;
  unsigned max_inflight_per_connection = 64;
  unsigned max_queued = 1024;
  // Each host's connect deadline (db::ConnectOptions::connect_timeout).
  std::chrono::milliseconds connect_timeout{1'000};
  // The sockets' TCP_USER_TIMEOUT, with keepalives (db::ConnectOptions::tcp_user_timeout).
  std::chrono::milliseconds tcp_user_timeout{2'000};
  // A connection that owes an answer and received nothing for this long asks its host for
  // a new connection (db::host_answers): none within connect_timeout, it is taken for dead
  // (a frozen or vanished server) long before the reply window below; one, it waits on
  // (a long statement, a commit waiting for a synchronous standby). An idle connection
  // pings after half of it with nothing received, watched the same way. 0: no such check
  // and no ping.
  std::chrono::milliseconds silence{1'000};
  // The database cancels a statement running longer (statement_timeout). A connection
  // whose oldest unit has waited this plus kReplyMargin without its answer is taken for
  // dead (a frozen server, a network partition): its units fail (503), it reconnects.
  std::chrono::milliseconds statement_timeout{10'000};
  std::chrono::milliseconds backoff_min{50};
  // Short, because a failover is an outage of a few seconds that ends at an unknown moment:
  // the connections find a newly promoted primary at most this long after it accepts them.
  std::chrono::milliseconds backoff_max{500};
};

class PgConnection;

class Pool {
 public:
  // Throws std::invalid_argument when a statement's parameter count does not match its
  // SQL (db::check_parameters): a server with such a statement does not start.
  Pool(PoolOptions options, std::span<const Statement> statements);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Starts connecting; call on the owning core's thread, inside its reactor.
  void start();

  // Runs the unit and resumes when its last Sync arrived (or it failed as a whole).
  runtime::task<Outcome> run(Unit& unit);

  // At least one connection is up and prepared.
  bool ready() const noexcept;
  // Every connection has made its first attempt (up, or failed and backing off): whether
  // the pool will be ready soon is known.
  bool settled() const noexcept;
  // Broadcast whenever ready() or settled() may have changed (a connection up, lost, or
  // done with its first attempt): what a coroutine waiting for them awaits.
  runtime::Event& changed() noexcept { return changed_; }
  // How many times a connection was lost so far: a standby's replay position read on one
  // session says nothing about the next (db/standbys.hpp).
  std::uint64_t losses() const noexcept { return losses_; }

  const PoolOptions& options() const noexcept { return options_; }
  std::span<const Statement> statements() const noexcept { return statements_; }

  // --- for PgConnection ---
  void on_connection_ready(PgConnection& c);
  void on_connection_attempted();
  void on_connection_lost();
  void on_unit_finished(PgConnection& c);

 private:
  struct AwaitUnit;  // suspends Pool::run until a connection finishes the unit
  PgConnection* pick() const noexcept;
  runtime::task<Outcome> run_attempts(Unit& unit);
  void dispatch_queued();
  void fail_queued(Outcome why);
  void count_connections_up() noexcept;

  PoolOptions options_;
  std::span<const Statement> statements_;
  std::vector<std::unique_ptr<PgConnection>> connections_;
  Unit* queue_head_ = nullptr;
  Unit* queue_tail_ = nullptr;
  std::size_t queued_ = 0;
  std::uint64_t losses_ = 0;
  PoolMetrics metrics_;
  runtime::Event changed_;
};

}  // namespace storeapi::db
