#pragma once
// A unit of database work: one or more prepared statements sent back to back and ended by
// a Sync, so one request's failure never spoils another request's statements on the same
// pipelined connection. sync() inside a unit splits it into segments, each its own
// implicit transaction. Parameters are copied into the unit (NUL-terminated text), so the
// caller's strings need not outlive add(); the unit itself lives in the awaiting
// coroutine's frame and allocates nothing on the heap for typical requests.
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "db/result.hpp"
#include "db/statement.hpp"

namespace storeapi::db {

class PgConnection;
class Pool;

class Param {
 public:
  Param() noexcept = default;  // SQL NULL
  Param(std::string_view text) noexcept : text_(text), null_(false) {}  // NOLINT: implicit by design
  Param(const char* text) noexcept : text_(text), null_(false) {}       // NOLINT
  Param(std::nullopt_t) noexcept : null_(true) {}                       // NOLINT
  Param(std::int64_t v) noexcept : integer_(v), is_integer_(true), null_(false) {}  // NOLINT
  Param(int v) noexcept : Param(static_cast<std::int64_t>(v)) {}                  // NOLINT
  template <class T>
  Param(const std::optional<T>& v) noexcept : Param(v ? Param(*v) : Param(std::nullopt)) {}  // NOLINT

 private:
  friend class Unit;
  std::string_view text_;
  std::int64_t integer_ = 0;
  bool is_integer_ = false;
  bool null_ = true;
};

enum class Outcome : std::uint8_t {
  done,         // every statement ran (each result says whether it succeeded)
  unavailable,  // no database connection: answer 503
  overloaded,   // every connection and the queue are full: answer 503
};

class Unit {
 public:
  static constexpr std::size_t kMaxStatements = 6;
  static constexpr std::size_t kMaxParams = 96;

  Unit() = default;
  Unit(const Unit&) = delete;
  Unit& operator=(const Unit&) = delete;

  Unit& add(const Statement& statement, std::initializer_list<Param> params) {
    return add(statement, std::span<const Param>(params.begin(), params.size()));
  }
  // For parameter lists assembled at run time (list pages pick a statement by filter).
  Unit& add(const Statement& statement, std::span<const Param> params) { return add(nullptr, statement, params); }
  // `statement` after `first`, a statement without parameters run before it in the same
  // segment (none when nullptr): a statement with its preamble in one call (a write with
  // the dispatchers' NOTIFY, api/writes/dispatcher_wake.hpp).
  Unit& add(const Statement* first, const Statement& statement, std::span<const Param> params);
  Unit& sync();

  std::size_t size() const noexcept { return count_; }
  Result& result(std::size_t i) noexcept { return results_[i]; }
  Outcome outcome() const noexcept { return outcome_; }
  // How long Pool::run took for it, queue and round trip together (every attempt): the
  // request's database time in its access-log line, and what stage timing
  // (metrics/stage_timing.hpp) tells apart from the handler's own time.
  std::chrono::steady_clock::duration database_time() const noexcept { return database_time_; }
  // Forgets results of a previous attempt (before a retry): finished (or refused before
  // it was sent) → built.
  void reset_results() noexcept;

 private:
  // The connection side: how a pool queues the unit and a connection runs it. Only
  // db::Pool and db::PgConnection reach it, and only through the transitions below
  // (docs/ARCHITECTURE.md §4a). Legal transitions, each checked where it happens
  // (move_to, debug builds):
  //   built    → queued   (Pool: every connection full; `next_` links the pool's queue)
  //   built    → sent     (PgConnection::submit; `next_` links its in-flight list,
  //                        `sent_at_` set; results then arrive one by one: `current_`,
  //                        `awaiting_end_`, `syncs_seen_`)
  //   queued   → sent     (the pool dispatches its queue)
  //   queued   → finished (the pool fails its queue: no connection left)
  //   sent     → finished (its last Sync arrived, or its connection was lost)
  //   finished → built    (reset_results, before a retry)
  // Entering finished sets `outcome_` and resumes the waiter, exactly once.
  friend class Pool;
  friend class PgConnection;

  enum class Phase : std::uint8_t { built, queued, sent, finished };
  static constexpr bool legal(Phase from, Phase to) noexcept {
    switch (from) {
      case Phase::built: return to == Phase::queued || to == Phase::sent;
      case Phase::queued: return to == Phase::sent || to == Phase::finished;
      case Phase::sent: return to == Phase::finished;
      case Phase::finished: return to == Phase::built;
    }
    return false;
  }
  void move_to(Phase to) noexcept;
  // → finished: the outcome set, the waiting coroutine resumed.
  void finish(Outcome outcome) noexcept;

  struct Sending {
    const char* name;
    int nparams;
    const char* const* values;
    bool sync_after;
  };
  Sending sending(std::size_t i) noexcept;
  std::size_t segments() const noexcept;

  Phase phase_ = Phase::built;
  Unit* next_ = nullptr;  // intrusive queue link
  PgConnection* connection_ = nullptr;  // where it ran
  std::coroutine_handle<> waiter_;
  std::chrono::steady_clock::time_point sent_at_{};  // when its connection sent it
  // When it became the oldest unit on its connection: PostgreSQL was done with the units
  // pipelined before it. Kept up to date only with stage timing on (metrics/stage_timing.hpp).
  std::chrono::steady_clock::time_point first_in_line_at_{};
  std::chrono::steady_clock::duration database_time_{};
  Outcome outcome_ = Outcome::done;
  std::size_t current_ = 0;       // statement whose results arrive next
  bool awaiting_end_ = false;     // a result arrived; libpq's NULL end-marker comes next
  std::size_t syncs_seen_ = 0;

  std::size_t store(std::string_view bytes);
  void append(const Statement& statement, std::span<const Param> params);

  struct Entry {
    const Statement* statement;
    std::uint16_t first_param;
    std::uint16_t nparams;
    bool sync_after;
  };
  Entry entries_[kMaxStatements];
  Result results_[kMaxStatements];
  std::size_t count_ = 0;

  // Parameter offsets into the arena; -1 is SQL NULL. Pointers are formed at send time
  // because the arena may move when it grows.
  std::int32_t offsets_[kMaxParams];
  const char* pointers_[kMaxParams];
  std::size_t param_count_ = 0;

  char inline_arena_[1024];
  std::unique_ptr<char[]> heap_arena_;
  std::size_t arena_cap_ = sizeof inline_arena_;
  std::size_t arena_used_ = 0;
};

}  // namespace storeapi::db
