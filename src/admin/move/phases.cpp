#include "admin/move/phases.hpp"

#include "admin/base/errors.hpp"
#include "common/uuid.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace storeapi::admin {

MovePhase recorded_phase(std::string_view stored) {
  for (MovePhase phase : {MovePhase::copying, MovePhase::flipped, MovePhase::done})
    if (phase_name(phase) == stored) return phase;
  throw CommandError("the directory records a store move in phase '" + std::string(stored) +
                     "', which this version does not know");
}

double seconds_between(MoveClock::time_point from, MoveClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

void PhaseClock::start(MovePhase phase) {
  finish();
  std::fprintf(stderr, "storeapi-admin: %s: %s\n", command_, phase_name(phase).data());
  std::fflush(stderr);
  current_ = phase;
  started_ = MoveClock::now();
}

void PhaseClock::finish() {
  if (!current_) return;
  const double seconds = seconds_between(started_, MoveClock::now());
  auto ran = std::find_if(done_.begin(), done_.end(), [&](const auto& d) { return d.first == *current_; });
  if (ran != done_.end()) ran->second += seconds;
  else done_.emplace_back(*current_, seconds);
  current_.reset();
}

void PhaseClock::write(JsonWriter& json) const {
  json.key("phases").begin_object();
  for (const auto& [phase, seconds] : done_) json.field(phase_name(phase), seconds);
  json.end_object();
}
std::string canonical_store_id(const std::string& given) {
  const std::optional<Uuid> uuid = Uuid::parse(given);
  return uuid ? uuid->str() : given;
}

Placement placement(pqxx::connection& directory, const std::string& store_id) {
  pqxx::nontransaction work(directory);
  auto r = is_uuid(store_id) ? work.exec_params("select pod, placement_epoch from stores where id = $1", store_id)
                             : pqxx::result();
  if (r.empty()) throw CommandError("no store with id '" + store_id + "'");
  return {r[0]["pod"].c_str(), r[0]["placement_epoch"].as<std::int64_t>()};
}

void lock_store_moves(pqxx::connection& directory, const std::string& store_id, const char* command) {
  pqxx::nontransaction work(directory);
  if (!work.exec_params1("select pg_try_advisory_lock(hashtext('storeapi.store_move'), hashtext($1)) as locked",
                         store_id)["locked"]
           .as<bool>())
    throw CommandError(std::string("another store move or restore of store ") + store_id + " is running (" + command +
                       " refused)");
}

}  // namespace storeapi::admin
