#pragma once
// Keeps the outbox's time slots (sql/033_outbox_partitions.sql): records the retention it
// applies, creates slots ahead of now, and drops the slots that have expired — past the
// retention with no work pending — each in one transaction of the owner's functions
// (api.extend_outbox_partitions, api.drop_outbox_slot: the dispatcher's role owns no
// table, docs/DECISIONS.md "Roles"). Runs on a connection of its own. Dispatchers side by
// side take turns (an advisory lock); a slot whose drop was cancelled is dropped by the
// next pass.
#include "common/retention.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace storeapi::dispatch {

class Partitions {
 public:
  Partitions(std::string database_url, Retention retention);
  ~Partitions();

  // How often maintain() should run: a quarter of a slot, from 250 ms to one minute.
  std::chrono::milliseconds interval() const;

  struct Pass {
    std::vector<std::string> dropped;  // the slots it dropped
    // Where the last slot ends (Unix seconds): writes fail past it. A fixed point in
    // time, so what the dispatcher shows of it stays right while passes fail.
    std::int64_t slots_end = 0;
  };
  // One pass. Throws pqxx errors (the caller logs them and tries again at the next
  // interval, on a new connection).
  Pass maintain();

 private:
  std::string database_url_;
  Retention retention_;
  struct Session;  // the libpqxx connection, kept out of this header
  std::unique_ptr<Session> session_;
};

}  // namespace storeapi::dispatch
