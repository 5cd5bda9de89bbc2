#pragma once
// The last write position (LSN) of each store, for one node without Redis that reads from
// standbys: shared by the process's cores (a write on one core, then a read on another,
// must see it), so behind a mutex. In a fleet the positions live in Redis instead
// (api/routing/read_router.hpp); docs/DECISIONS.md "Reads from standbys".
//
// A position is one pod's WAL position, meaningless on another pod, so it is kept with
// the store's placement epoch (docs/DECISIONS.md, "Pods"): a position of another epoch
// is no answer, and a later epoch's replaces an earlier one's.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace storeapi::db {

class WritePositions {
 public:
  // The store's last position recorded by this process under placement `epoch`; nullopt
  // when none was.
  std::optional<std::uint64_t> find(std::string_view store, std::int64_t epoch) const;
  // Raises the store's position under `epoch` to `lsn` (never lowers it: writes finish out
  // of order). A later epoch starts afresh; an earlier one's is ignored (a request that
  // began before the store moved).
  void raise(std::string_view store, std::int64_t epoch, std::uint64_t lsn);

 private:
  struct Position {
    std::int64_t epoch = 0;
    std::uint64_t lsn = 0;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Position> by_store_;
};

}  // namespace storeapi::db
