#pragma once
// The last write position (LSN) of each store, for one node without Redis that reads from
// standbys: shared by the process's cores (a write on one core, then a read on another,
// must see it), so behind a mutex. In a fleet the positions live in Redis instead
// (api/routing/read_router.hpp); docs/DECISIONS.md "Reads from standbys".
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace storeapi::db {

class WritePositions {
 public:
  // The store's last recorded position; nullopt when none was recorded by this process.
  std::optional<std::uint64_t> find(std::string_view store) const;
  // Raises the store's position to `lsn` (never lowers it: writes finish out of order).
  void raise(std::string_view store, std::uint64_t lsn);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::uint64_t> by_store_;
};

}  // namespace storeapi::db
