#pragma once
// Keeps the outbox's time slots (sql/033_outbox_partitions.sql): records the retention it
// applies, creates slots ahead of now, and detaches and drops the slots that have expired
// — past the retention with no work pending — table by table with DETACH PARTITION
// CONCURRENTLY, which writes pass. Runs on a connection of its own, in autocommit (DETACH
// CONCURRENTLY cannot run in a transaction block). Dispatchers side by side take turns
// (an advisory lock); one killed half-way is finished by the next pass, which completes an
// interrupted detach (FINALIZE) and drops what is left.
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
