#pragma once
// What the commands that replace a store's rows on a pod share (`store move`,
// admin/move/store_move.hpp; `store restore`, admin/move/store_restore.hpp): their phases,
// run from a table, timed and announced; the store's placement; one such command per
// store at a time.
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storeapi::admin {

// Every phase of a move or a restore, in the order a move runs them (a restore runs
// checks, dispatch_pause, fence, replace, lift; `undo` runs only to take back a move
// stopped before its flip). A phase's name is what the commands report: the line on
// stderr as it starts, its seconds in the JSON's "phases". Three of them are also the
// states `store_moves.phase` records (sql/035_store_moves.sql): `copying` (the target
// prepared and the copy begun; a move stopped there is undone), `flipped` (written in the
// flip's own transaction; a move stopped after it is finished) and `done`. Those three
// strings are what the previous release's tool reads from the directory: never rename them.
enum class MovePhase : std::uint8_t {
  checks,
  undo,
  prepare,
  copying,
  catch_up,
  dispatch_pause,
  fence,
  replace,
  detach,
  flipped,
  lift,
  cleanup,
  done,
};

inline constexpr std::array<std::string_view, 13> kPhaseNames = {
    "checks", "undo",    "prepare", "copying", "catch_up", "dispatch_pause", "fence", "replace",
    "detach", "flipped", "lift",    "cleanup", "done"};

constexpr std::string_view phase_name(MovePhase phase) { return kPhaseNames[static_cast<std::size_t>(phase)]; }

// The phase a `store_moves.phase` value names: copying, flipped or done (what the table's
// check allows); CommandError for anything else. And back: the value for one of those.
MovePhase recorded_phase(std::string_view stored);
inline std::string stored_phase(MovePhase phase) { return std::string(phase_name(phase)); }

using MoveClock = std::chrono::steady_clock;

double seconds_between(MoveClock::time_point from, MoveClock::time_point to);

// Times the phases and announces each on stderr as it starts
// ("storeapi-admin: <command>: <phase>"). A phase that runs again (the checks after a
// stopped move was taken up) adds to its time.
class PhaseClock {
 public:
  explicit PhaseClock(const char* command) : command_(command) {}
  void start(MovePhase phase);
  void finish();
  // "phases": {phase: seconds, ...}, in the order they first ran
  void write(JsonWriter& json) const;

 private:
  const char* command_;
  std::optional<MovePhase> current_;
  MoveClock::time_point started_;
  std::vector<std::pair<MovePhase, double>> done_;
};

// One row of a command's phase table: the phase and the function that does it on the
// command's state (`Job`: the move's, the restore's).
template <typename Job>
struct PhaseStep {
  MovePhase phase;
  void (*run)(Job&);
};

// Runs the table's phases in its order, from `first` on, each started on `clock`.
template <typename Job>
void run_phases(std::span<const PhaseStep<Job>> steps, Job& job, PhaseClock& clock, MovePhase first) {
  bool reached = false;
  for (const PhaseStep<Job>& step : steps) {
    reached = reached || step.phase == first;
    if (!reached) continue;
    clock.start(step.phase);
    step.run(job);
  }
}

// The store id in one spelling (a uuid's lower case), for the lock and the replication's
// names: two commands on one store given in different cases must not both hold "the" lock.
std::string canonical_store_id(const std::string& given);

// Where the directory places the store; CommandError for an unknown store.
struct Placement {
  std::string pod;
  std::int64_t epoch = 0;
};
Placement placement(pqxx::connection& directory, const std::string& store_id);

// Holds the store to one move or restore at a time (a session lock on the directory: a
// killed process lets go of it); CommandError naming `command` when another one runs.
void lock_store_moves(pqxx::connection& directory, const std::string& store_id, const char* command);

// How long a move or restore waits for the dispatchers' claims in flight when it pauses
// the store's dispatch.
inline constexpr std::chrono::milliseconds kDispatchLimit{5'000};

}  // namespace storeapi::admin
