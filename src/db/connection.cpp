#include "db/connection.hpp"

#include <poll.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "metrics/stage_timing.hpp"
#include "common/backoff.hpp"
#include "db/connect.hpp"
#include "db/pool.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::db {
PgConnection::PgConnection(Pool& pool, unsigned id) : pool_(pool), id_(id) {}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

void PgConnection::start() { runtime::spawn(drive()); }

runtime::task<bool> PgConnection::establish() {
  runtime::Deadline deadline = runtime::Deadline::after(pool_.options().connect_timeout);
  Connected connected = co_await connect(pool_.options().url, pool_.options().statement_timeout, deadline);
  conn_ = connected.conn;
  if (!conn_) {
    last_error_ = std::move(connected.failure);
    co_return false;
  }
  if (PQenterPipelineMode(conn_) != 1) {
    last_error_ = one_line(PQerrorMessage(conn_));
    co_return false;
  }

  for (const Statement& s : pool_.statements())
    if (!PQsendPrepare(conn_, s.name, s.sql, s.param_count(), nullptr)) co_return false;
  if (!PQpipelineSync(conn_)) co_return false;
  last_error_ = "connection lost while preparing statements";

  bool prepared = true;
  for (;;) {
    int pending = PQflush(conn_);
    if (pending < 0) co_return false;
    if (!co_await await_socket(conn_, POLLIN | (pending ? POLLOUT : 0), &deadline)) co_return false;
    if (!PQconsumeInput(conn_)) co_return false;
    while (!PQisBusy(conn_)) {
      PGresult* r = PQgetResult(conn_);
      if (!r) continue;  // end of one Prepare's results
      ExecStatusType status = PQresultStatus(r);
      if (status == PGRES_PIPELINE_SYNC) {
        PQclear(r);
        co_return prepared;
      }
      if (status != PGRES_COMMAND_OK && prepared) {
        // Typically the schema is not migrated yet: the driver retries with backoff.
        last_error_ = "preparing statements failed: " + one_line(PQresultErrorMessage(r));
        prepared = false;
      }
      PQclear(r);
    }
  }
}

runtime::task<void> PgConnection::drive() {
  Backoff backoff(pool_.options().backoff_min, pool_.options().backoff_max);
  for (;;) {
    if (!conn_) {
      const bool established = co_await establish();
      attempted_ = true;
      pool_.on_connection_attempted();
      if (established) {
        if (logged_failure_ && id_ == 0) std::fprintf(stderr, "storeapi: %s connection restored\n", pool_.options().label.c_str());
        logged_failure_ = false;
        backoff.reset();
        ready_ = true;
        pool_.on_connection_ready(*this);
      } else {
        if (!logged_failure_ && id_ == 0)
          std::fprintf(stderr, "storeapi: %s connection failed: %s\n", pool_.options().label.c_str(),
                       last_error_.c_str());
        logged_failure_ = true;
        if (conn_) PQfinish(conn_);
        conn_ = nullptr;
        co_await runtime::sleep_for(backoff.next());
      }
      continue;
    }
    if (broken_) {
      close_and_fail_inflight();
      continue;
    }
    // The oldest unit's answer is due within the reply window. Idle, the driver still
    // wakes once a window, so a unit sent meanwhile is watched without waking it on
    // every submit.
    const auto reply_window = pool_.options().statement_timeout + kReplyMargin;
    const runtime::Deadline deadline =
        runtime::Deadline::at((head_ ? head_->sent_at_ : runtime::Clock::now()) + reply_window);
    runtime::Poll op(PQsocket(conn_), POLLIN | (want_write_ ? POLLOUT : 0), &deadline);
    polling_ = &op;
    int events = co_await op;
    polling_ = nullptr;
    if (events == -ECANCELED) {
      // The deadline, or woken to poll for something else or to close.
      if (head_ && runtime::Clock::now() >= head_->sent_at_ + reply_window) {
        last_error_ = "no answer from the database within the statement timeout";
        broken_ = true;
      }
      continue;
    }
    if (events < 0) {
      broken_ = true;
      continue;
    }
    if (events & POLLOUT) {
      int pending = PQflush(conn_);
      want_write_ = pending == 1;
      if (pending < 0) broken_ = true;
    }
    if (events & (POLLIN | POLLERR | POLLHUP)) {
      if (!PQconsumeInput(conn_)) {
        broken_ = true;
        continue;
      }
      read_results();
    }
  }
}

void PgConnection::read_results() {
  while (head_ && !PQisBusy(conn_)) {
    Unit* u = head_;
    PGresult* r = PQgetResult(conn_);
    if (!r) {
      // libpq ends each statement's results with NULL; a NULL we did not expect means
      // nothing more is available yet.
      if (!u->awaiting_end_) break;
      u->awaiting_end_ = false;
      ++u->current_;
      continue;
    }
    if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) {
      PQclear(r);
      if (++u->syncs_seen_ == u->segments()) finish_head(Outcome::done);
      continue;
    }
    if (u->current_ < u->size()) u->result(u->current_) = Result(r);
    else PQclear(r);
    u->awaiting_end_ = true;
  }
  // A fatal error (server shutdown, terminated backend) leaves libpq's pipeline state
  // unreliable: never resynchronise, drop the connection (docs/PITFALLS.md).
  if (PQstatus(conn_) == CONNECTION_BAD) broken_ = true;
}

void PgConnection::finish_head(Outcome outcome) {
  Unit* u = head_;
  head_ = u->next_;
  if (!head_) tail_ = nullptr;
  else if (stage_timing::enabled()) head_->first_in_line_at_ = runtime::Clock::now();
  --inflight_;
  u->finish(outcome);
  pool_.on_unit_finished(*this);
}

void PgConnection::submit(Unit& unit) {
  unit.move_to(Unit::Phase::sent);
  unit.connection_ = this;
  unit.next_ = nullptr;
  unit.sent_at_ = runtime::Clock::now();
  unit.first_in_line_at_ = unit.sent_at_;  // unless units are in line before it (finish_head)
  if (tail_) tail_->next_ = &unit;
  else head_ = &unit;
  tail_ = &unit;
  ++inflight_;
  for (std::size_t i = 0; i < unit.size(); ++i) {
    Unit::Sending s = unit.sending(i);
    if (!PQsendQueryPrepared(conn_, s.name, s.nparams, s.values, nullptr, nullptr, 0) ||
        (s.sync_after && !PQpipelineSync(conn_))) {
      broken_ = true;  // the driver fails this unit and the others in flight
      wake_driver();
      return;
    }
  }
  int pending = PQflush(conn_);
  if (pending < 0) {
    broken_ = true;
    wake_driver();
  } else if (pending == 1 && !want_write_) {
    want_write_ = true;
    wake_driver();
  }
}

void PgConnection::reset() {
  broken_ = true;
  wake_driver();
}

void PgConnection::wake_driver() {
  if (polling_) polling_->cancel();
}

void PgConnection::close_and_fail_inflight() {
  ready_ = false;
  broken_ = false;
  want_write_ = false;
  PQfinish(conn_);
  conn_ = nullptr;
  while (head_) {
    Unit* u = head_;
    head_ = u->next_;
    --inflight_;
    u->finish(Outcome::unavailable);
  }
  tail_ = nullptr;
  pool_.on_connection_lost();
}

}  // namespace storeapi::db
