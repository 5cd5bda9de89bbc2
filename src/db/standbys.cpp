#include "db/standbys.hpp"

#include <algorithm>

#include "common/backoff.hpp"
#include "db/lsn.hpp"
#include "db/unit.hpp"
#include "metrics/registry.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::db {

const Statement kReplayPosition{"replay_position",
                                "select pg_last_wal_replay_lsn()::text as replayed, pg_is_in_recovery() as in_recovery",
                                {}, ReplayPosition::columns};
const Statement kWalInsertPosition{"wal_insert_position", "select pg_current_wal_insert_lsn()::text as inserted", {},
                                   WalInsertPosition::columns};

namespace {

// A standby whose last good poll is older than this is left out: frozen, partitioned, or
// so busy that its answers would be late anyway.
std::chrono::milliseconds stale_after(std::chrono::milliseconds poll) {
  return std::max(std::chrono::milliseconds(1'000), poll * 50);
}

}  // namespace

struct Standbys::Standby {
  explicit Standby(PoolOptions options, std::span<const Statement> statements) : pool(std::move(options), statements) {}

  Pool pool;
  // What the last good poll saw, on the session that was current then (pool.losses()).
  std::uint64_t replayed = 0;
  std::uint64_t session = 0;
  bool usable = false;
  runtime::Clock::time_point polled_at{};
  // A poll has run since the connection's first attempt ended (up or refused): in_use()
  // says what it will say until the next poll, not "not yet known".
  bool settled = false;

  // Reads may go here (pick) and writes wait for it (replayed_everywhere): in recovery, on
  // the session its last good poll saw, and that poll no older than `fresh_since`.
  bool in_use(runtime::Clock::time_point fresh_since) const noexcept {
    return usable && session == pool.losses() && polled_at >= fresh_since;
  }
};

Standbys::Standbys(const StandbyOptions& options, std::span<const Statement> statements)
    : poll_interval_(options.poll),
      waits_(metrics::Registry::process()
                 .counter("storeapi_db_standby_waits_total",
                          "Writes held until every standby in use had replayed them (their position could not be "
                          "recorded in Redis), counted when the wait begins.")
                 .with({})) {
  for (std::size_t i = 0; i < options.urls.size(); ++i) {
    PoolOptions p;
    p.url = options.urls[i];
    p.label = "standby " + std::to_string(i + 1);
    // One connection: the poll and the reads share a session, so a position the poll saw
    // is one the reads see too (a restarted standby may briefly show less than before).
    p.connections = 1;
    p.statement_timeout = options.statement_timeout;
    standbys_.push_back(std::make_unique<Standby>(std::move(p), statements));
  }
}

Standbys::~Standbys() = default;

void Standbys::start() {
  started_at_ = runtime::Clock::now();
  for (auto& s : standbys_) {
    s->pool.start();
    runtime::spawn(poll(*s));
  }
}

Pool* Standbys::pick(std::uint64_t lsn) noexcept {
  const auto fresh_since = runtime::Clock::now() - stale_after(poll_interval_);
  for (std::size_t i = 0; i < standbys_.size(); ++i) {
    Standby& s = *standbys_[(turn_ + i) % standbys_.size()];
    if (s.in_use(fresh_since) && s.replayed >= lsn && s.pool.ready()) {
      turn_ = (turn_ + i + 1) % standbys_.size();
      return &s.pool;
    }
  }
  return nullptr;
}

bool Standbys::replayed_everywhere(std::uint64_t lsn) const noexcept {
  // A standby this core cannot use now (down, promoted, not answering) is not waited for:
  // the wait would last its whole bound on every such write.
  const auto fresh_since = runtime::Clock::now() - stale_after(poll_interval_);
  return std::all_of(standbys_.begin(), standbys_.end(), [&](const std::unique_ptr<Standby>& s) {
    return !s->in_use(fresh_since) || s->replayed >= lsn;
  });
}

bool Standbys::settled() const noexcept {
  // A standby whose first poll hangs is not waited for longer than a poll's answer may be
  // late before the standby is left out anyway (stale_after).
  return std::all_of(standbys_.begin(), standbys_.end(), [](const std::unique_ptr<Standby>& s) { return s->settled; }) ||
         runtime::Clock::now() >= started_at_ + stale_after(poll_interval_);
}

runtime::task<void> Standbys::settle(runtime::Clock::time_point until) {
  // Settled by a poll (polled_) or by the time a first poll may take (no event marks it).
  until = std::min(until, started_at_ + stale_after(poll_interval_));
  while (!settled()) {
    const runtime::Woken woken = co_await polled_.wait_until(until);
    if (woken != runtime::Woken::signalled) break;
  }
}

runtime::task<void> Standbys::wait_replayed_everywhere(std::uint64_t lsn, std::chrono::milliseconds bound) {
  if (replayed_everywhere(lsn)) co_return;
  waits_.inc();
  const auto deadline = runtime::Clock::now() + bound;
  while (!replayed_everywhere(lsn)) {
    // A poll moves a standby on; a standby whose last poll grows stale leaves the set
    // waited for without one, so the wait also ends at the first such moment.
    const auto wake_at = std::min(deadline, next_stale_at());
    const runtime::Woken woken = co_await polled_.wait_until(wake_at);
    if (woken == runtime::Woken::broken || (woken == runtime::Woken::timed_out && wake_at == deadline)) co_return;
  }
}

runtime::Clock::time_point Standbys::next_stale_at() const noexcept {
  const auto fresh_since = runtime::Clock::now() - stale_after(poll_interval_);
  auto earliest = runtime::Clock::time_point::max();
  for (const auto& s : standbys_)
    if (s->in_use(fresh_since)) earliest = std::min(earliest, s->polled_at + stale_after(poll_interval_));
  return earliest;
}

runtime::task<void> Standbys::poll(Standby& s) {
  Backoff backoff(std::chrono::milliseconds(50), std::chrono::milliseconds(2'000));
  for (;;) {
    // Until the connection's first attempt has ended there is nothing to ask (a run would
    // only count as unavailable); look again soon: the node waits for this standby's
    // first poll before it listens (settled()).
    if (!s.pool.settled()) {
      co_await s.pool.changed().wait();
      continue;
    }
    const std::uint64_t session = s.pool.losses();
    Unit unit;
    unit.add(kReplayPosition, {});
    const Outcome outcome = co_await s.pool.run(unit);
    const Result& r = unit.result(0);
    const auto row = r.row<ReplayPosition>(0);
    // A promoted standby (not in recovery) answers NULL: it left the primary's timeline.
    const std::optional<std::uint64_t> replayed =
        outcome == Outcome::done && r.ok() && r.rows() == 1 && !row.is_null(ReplayPosition::Index::replayed) &&
                row.in_recovery()
            ? parse_lsn(row.replayed())
            : std::nullopt;
    s.settled = true;
    polled_.broadcast();
    if (replayed && session == s.pool.losses()) {
      // Never backwards on one session: replay only moves forward.
      s.replayed = s.session == session && s.usable ? std::max(s.replayed, *replayed) : *replayed;
      s.session = session;
      s.usable = true;
      s.polled_at = runtime::Clock::now();
      backoff.reset();
      co_await runtime::sleep_for(poll_interval_);
    } else {
      s.usable = false;
      co_await runtime::sleep_for(backoff.next());
    }
  }
}

}  // namespace storeapi::db
