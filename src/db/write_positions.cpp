#include "db/write_positions.hpp"

#include <algorithm>

namespace storeapi::db {

std::optional<std::uint64_t> WritePositions::find(std::string_view store) const {
  std::lock_guard lock(mutex_);
  const auto it = by_store_.find(std::string(store));
  if (it == by_store_.end()) return std::nullopt;
  return it->second;
}

void WritePositions::raise(std::string_view store, std::uint64_t lsn) {
  std::lock_guard lock(mutex_);
  std::uint64_t& at = by_store_[std::string(store)];
  at = std::max(at, lsn);
}

}  // namespace storeapi::db
