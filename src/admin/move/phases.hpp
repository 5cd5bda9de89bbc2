#pragma once
// What the commands that replace a store's rows on a pod share (`store move`,
// admin/move/store_move.hpp; `store restore`, admin/move/store_restore.hpp): the store's placement,
// one such command per store at a time, and the phases timed and announced.
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace storeapi::admin {

using MoveClock = std::chrono::steady_clock;

double seconds_between(MoveClock::time_point from, MoveClock::time_point to);

// Times the phases and announces each on stderr as it starts
// ("storeapi-admin: <command>: <phase>").
class PhaseClock {
 public:
  explicit PhaseClock(const char* command) : command_(command) {}
  void start(const char* phase);
  void finish();
  // "phases": {phase: seconds, ...}
  void write(JsonWriter& json) const;

 private:
  const char* command_;
  const char* current_ = nullptr;
  MoveClock::time_point started_;
  std::vector<std::pair<const char*, double>> done_;
};

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

}  // namespace storeapi::admin
