#include "db/pool.hpp"

#include "metrics/stage_timing.hpp"
#include "db/connection.hpp"

#include <chrono>

namespace storeapi::db {
namespace {

// After DDL a prepared statement can fail once with this error (docs/PITFALLS.md); preparing it
// again on a fresh connection and retrying the unit fixes it. Units are written so that a
// retry is safe (a failed segment changed nothing; idempotency tokens cover the rest).
bool needs_fresh_plan(Unit& unit) {
  for (std::size_t i = 0; i < unit.size(); ++i) {
    Result& r = unit.result(i);
    if (r.sqlstate() == "0A000" &&
        r.error_message().find("cached plan must not change result type") != std::string_view::npos)
      return true;
  }
  return false;
}

// The session refused a write (25006 read_only_sql_transaction): it is on a server that
// is no longer the primary — demoted behind a connection made before, or fenced read-only
// by a failover manager. A fresh connection finds the primary (target_session_attrs) or
// finds none; either way this one is of no use for writes any more.
bool landed_on_read_only(Unit& unit) {
  for (std::size_t i = 0; i < unit.size(); ++i)
    if (unit.result(i).sqlstate() == "25006") return true;
  return false;
}

}  // namespace

struct Pool::AwaitUnit {
  Unit& unit;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { unit.waiter_ = h; }
  Outcome await_resume() const noexcept { return unit.outcome_; }
};

Pool::Pool(PoolOptions options, std::span<const Statement> statements)
    : options_(std::move(options)), statements_(statements) {
  check_parameters(statements_);
  for (unsigned i = 0; i < options_.connections; ++i)
    connections_.push_back(std::make_unique<PgConnection>(*this, i));
}

Pool::~Pool() = default;

void Pool::start() {
  for (auto& c : connections_) c->start();
}

bool Pool::ready() const noexcept {
  for (const auto& c : connections_)
    if (c->ready()) return true;
  return false;
}

bool Pool::settled() const noexcept {
  for (const auto& c : connections_)
    if (!c->attempted()) return false;
  return true;
}

PgConnection* Pool::pick() const noexcept {
  PgConnection* best = nullptr;
  for (const auto& c : connections_)
    if (c->ready() && (!best || c->inflight() < best->inflight())) best = c.get();
  return best;
}

runtime::task<Outcome> Pool::run(Unit& unit) {
  auto started = std::chrono::steady_clock::now();
  metrics_.in_flight.inc();
  Outcome outcome = co_await run_attempts(unit);
  metrics_.in_flight.dec();
  unit.database_time_ = std::chrono::steady_clock::now() - started;
  metrics_.unit_duration.observe(std::chrono::duration<double>(unit.database_time_).count());
  if (outcome == Outcome::unavailable) metrics_.unavailable.inc();
  if (outcome == Outcome::overloaded) metrics_.overloaded.inc();
  if (outcome == Outcome::done)
    for (std::size_t i = 0; i < unit.size(); ++i)
      if (!unit.result(i).ok()) metrics_.count_error(unit.result(i));
  co_return outcome;
}

runtime::task<Outcome> Pool::run_attempts(Unit& unit) {
  for (int attempt = 0;; ++attempt) {
    const auto entered = stage_timing::now_if_enabled();
    PgConnection* c = pick();
    // A retry follows a reset: give the connections the time to come back (rare path).
    if (attempt > 0 && !c) {
      const auto until = runtime::Clock::now() + options_.connect_timeout;
      while (!c) {
        const runtime::Woken woken = co_await changed_.wait_until(until);
        if (woken != runtime::Woken::signalled) break;
        c = pick();
      }
    }
    if (!c) co_return Outcome::unavailable;
    if (c->inflight() >= options_.max_inflight_per_connection || queue_head_) {
      if (queued_ >= options_.max_queued) co_return Outcome::overloaded;
      unit.move_to(Unit::Phase::queued);
      unit.next_ = nullptr;
      if (queue_tail_) queue_tail_->next_ = &unit;
      else queue_head_ = &unit;
      queue_tail_ = &unit;
      ++queued_;
      metrics_.queued.inc();
    } else {
      c->submit(unit);
    }
    Outcome outcome = co_await AwaitUnit{unit};
    if (stage_timing::enabled() && outcome == Outcome::done) {  // it was sent (else it never left the queue)
      stage_timing::record(stage_timing::Stage::db_queue, unit.sent_at_ - entered);
      stage_timing::record(stage_timing::Stage::db_pipeline, unit.first_in_line_at_ - unit.sent_at_);
      stage_timing::record_since(stage_timing::Stage::db, unit.first_in_line_at_);
    }
    if (outcome == Outcome::done && attempt == 0 && needs_fresh_plan(unit)) {
      unit.connection_->reset();
      unit.reset_results();
      continue;
    }
    if (outcome == Outcome::done && landed_on_read_only(unit)) {
      // The refused statement changed nothing, so running the unit again is safe; a second
      // refusal means no primary is reachable now: the database's state, answered 503.
      unit.connection_->reset();
      if (attempt > 0) co_return Outcome::unavailable;
      unit.reset_results();
      continue;
    }
    co_return outcome;
  }
}

void Pool::dispatch_queued() {
  while (queue_head_) {
    PgConnection* c = pick();
    if (!c || c->inflight() >= options_.max_inflight_per_connection) return;
    Unit* u = queue_head_;
    queue_head_ = u->next_;
    if (!queue_head_) queue_tail_ = nullptr;
    --queued_;
    metrics_.queued.dec();
    c->submit(*u);
  }
}

void Pool::fail_queued(Outcome why) {
  while (queue_head_) {
    Unit* u = queue_head_;
    queue_head_ = u->next_;
    if (!queue_head_) queue_tail_ = nullptr;
    --queued_;
    metrics_.queued.dec();
    u->finish(why);
  }
}

void Pool::count_connections_up() noexcept {
  unsigned up = 0;
  for (const auto& c : connections_) up += c->ready() ? 1 : 0;
  metrics_.set_connections_up(up);
}

void Pool::on_connection_ready(PgConnection&) {
  count_connections_up();
  dispatch_queued();
}

// Every attempt, failed or not, wakes the waiters: they run after the connection has set
// its state (a woken coroutine never resumes inline), so a ready connection needs no second
// announcement.
void Pool::on_connection_attempted() { changed_.broadcast(); }

void Pool::on_connection_lost() {
  ++losses_;
  metrics_.reconnects.inc();
  count_connections_up();
  if (!ready()) fail_queued(Outcome::unavailable);
  changed_.broadcast();
}

void Pool::on_unit_finished(PgConnection&) { dispatch_queued(); }

}  // namespace storeapi::db
