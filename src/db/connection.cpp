#include "db/connection.hpp"

#include <poll.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>

#include "metrics/stage_timing.hpp"
#include "common/backoff.hpp"
#include "db/connect.hpp"
#include "db/pool.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::db {

namespace {
// An idle connection pings after half its silence bound, but not more often than this: a
// bound of a few milliseconds (the setting allows 1) would ping once per round trip.
constexpr std::chrono::milliseconds kMinIdlePingInterval{100};

std::chrono::milliseconds idle_ping_after(std::chrono::milliseconds silence) {
  return std::max(silence / 2, kMinIdlePingInterval);
}
}  // namespace
PgConnection::PgConnection(Pool& pool, unsigned id) : pool_(pool), id_(id) {}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

void PgConnection::start() { runtime::spawn(drive()); }

ConnectOptions PgConnection::connect_options() const {
  const PoolOptions& o = pool_.options();
  return ConnectOptions{.statement_timeout = o.statement_timeout,
                        .connect_timeout = o.connect_timeout,
                        .tcp_user_timeout = o.tcp_user_timeout};
}

void PgConnection::set_state(State next) noexcept {
  assert(legal(state_, next));
  state_ = next;
}

void PgConnection::break_off(std::string why) {
  if (state_ != State::ready) return;
  if (!why.empty()) last_error_ = std::move(why);
  set_state(State::broken);
}

runtime::task<bool> PgConnection::establish() {
  const ConnectOptions options = connect_options();  // named: see listener.cpp
  Connected connected = co_await connect(pool_.options().url, options);
  conn_ = connected.conn;
  host_ = std::move(connected.host);
  // Statements are prepared within the host's connect deadline too.
  const runtime::Deadline deadline = runtime::Deadline::after(pool_.options().connect_timeout);
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
      pool_.on_connection_attempted();
      if (established) {
        if (logged_failure_ && id_ == 0) std::fprintf(stderr, "storeapi: %s connection restored\n", pool_.options().label.c_str());
        logged_failure_ = false;
        backoff.reset();
        last_received_ = runtime::Clock::now();
        set_state(State::ready);
        pool_.on_connection_ready(*this);
      } else {
        set_state(State::down);
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
    if (state_ == State::broken) {
      close_and_fail_inflight();
      continue;
    }
    // The oldest unit's answer is due within the reply window, and some byte within the
    // silence bound (then the host is asked, silent_and_dead). Idle, the driver still
    // wakes once a silence bound (or window), so a unit sent meanwhile is watched without
    // waking it on every submit: its silence is noticed within twice the bound at most.
    const auto reply_window = pool_.options().statement_timeout + kReplyMargin;
    const auto silence = pool_.options().silence;
    const auto now = runtime::Clock::now();
    auto due = head_ ? head_->sent_at_ + reply_window : now + reply_window;
    if (silence.count() > 0) {
      if (const auto owed = owed_since())
        due = std::min(due, std::max(last_received_, *owed) + silence);
      else
        due = std::min(due, last_received_ + idle_ping_after(silence));
    }
    const runtime::Deadline deadline = runtime::Deadline::at(due);
    runtime::Poll op(PQsocket(conn_), POLLIN | (want_write_ ? POLLOUT : 0), &deadline);
    polling_ = &op;
    int events = co_await op;
    polling_ = nullptr;
    if (events == -ECANCELED) {
      // The deadline, or woken to poll for something else or to close.
      if (head_ && runtime::Clock::now() >= head_->sent_at_ + reply_window)
        break_off("no answer from the database within the statement timeout");
      else if (co_await silent_and_dead())
        break_off("no answer from the database for " + std::to_string(silence.count()) + " ms, and " +
                  host_.key() + " accepts no new connection either");
      else if (quiet_and_idle())
        ping();
      if (state_ == State::broken && id_ == 0)
        std::fprintf(stderr, "storeapi: %s connection lost: %s\n", pool_.options().label.c_str(), last_error_.c_str());
      continue;
    }
    if (events < 0) {
      break_off({});
      continue;
    }
    if (events & POLLOUT) {
      int pending = PQflush(conn_);
      want_write_ = pending == 1;
      if (pending < 0) break_off({});
    }
    if (events & (POLLIN | POLLERR | POLLHUP)) {
      last_received_ = runtime::Clock::now();
      if (!PQconsumeInput(conn_)) {
        break_off(one_line(PQerrorMessage(conn_)));
        continue;
      }
      read_results();
    }
  }
}

void PgConnection::read_results() {
  // A ping went out with nothing in flight: its Sync's result comes before any unit's.
  if (pinging_ && !PQisBusy(conn_)) {
    if (PGresult* r = PQgetResult(conn_)) {
      PQclear(r);
      pinging_ = false;
    }
  }
  while (!pinging_ && head_ && !PQisBusy(conn_)) {
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
  if (PQstatus(conn_) == CONNECTION_BAD) break_off({});
}

std::optional<runtime::Clock::time_point> PgConnection::owed_since() const noexcept {
  if (pinging_) return ping_sent_at_;  // sent with nothing in flight: the oldest
  if (head_) return head_->sent_at_;
  return std::nullopt;
}

bool PgConnection::quiet_and_idle() const noexcept {
  const auto silence = pool_.options().silence;
  return state_ == State::ready && !owed_since() && silence.count() > 0 &&
         runtime::Clock::now() >= last_received_ + idle_ping_after(silence);
}

void PgConnection::ping() {
  // A Sync alone: the backend answers ReadyForQuery, a few bytes and no statement.
  if (!PQpipelineSync(conn_)) {
    break_off(one_line(PQerrorMessage(conn_)));
    return;
  }
  pinging_ = true;
  ping_sent_at_ = runtime::Clock::now();
  const int pending = PQflush(conn_);
  if (pending < 0) break_off(one_line(PQerrorMessage(conn_)));
  else if (pending == 1) want_write_ = true;
}

runtime::task<bool> PgConnection::silent_and_dead() {
  const auto silence = pool_.options().silence;
  const auto owed = owed_since();
  if (!owed || silence.count() == 0 || state_ != State::ready) co_return false;
  if (runtime::Clock::now() < std::max(last_received_, *owed) + silence) co_return false;
  // Meanwhile the socket is not polled: what arrives waits in the kernel until the answer.
  const ConnectOptions options = connect_options();
  if (!co_await host_answers(pool_.options().url, host_, options)) co_return true;
  // A long statement: ask again after another bound of silence.
  last_received_ = runtime::Clock::now();
  co_return false;
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
      break_off(one_line(PQerrorMessage(conn_)));  // the driver fails this unit and the others in flight
      wake_driver();
      return;
    }
  }
  int pending = PQflush(conn_);
  if (pending < 0) {
    break_off(one_line(PQerrorMessage(conn_)));
    wake_driver();
  } else if (pending == 1 && !want_write_) {
    want_write_ = true;
    wake_driver();
  }
}

void PgConnection::reset() {
  break_off({});
  wake_driver();
}

void PgConnection::wake_driver() {
  if (polling_) polling_->cancel();
}

void PgConnection::close_and_fail_inflight() {
  set_state(State::down);
  want_write_ = false;
  pinging_ = false;
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
