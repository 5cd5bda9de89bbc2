#include "admin/move/phases.hpp"

#include "admin/base/errors.hpp"
#include "common/uuid.hpp"

#include <cstdio>
#include <optional>

namespace storeapi::admin {

double seconds_between(MoveClock::time_point from, MoveClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

void PhaseClock::start(const char* phase) {
  finish();
  std::fprintf(stderr, "storeapi-admin: %s: %s\n", command_, phase);
  std::fflush(stderr);
  current_ = phase;
  started_ = MoveClock::now();
}

void PhaseClock::finish() {
  if (current_) done_.emplace_back(current_, seconds_between(started_, MoveClock::now()));
  current_ = nullptr;
}

void PhaseClock::write(JsonWriter& json) const {
  json.key("phases").begin_object();
  for (const auto& [phase, seconds] : done_) json.field(phase, seconds);
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
