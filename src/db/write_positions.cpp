#include "db/write_positions.hpp"

#include <algorithm>

namespace storeapi::db {

std::optional<std::uint64_t> WritePositions::find(std::string_view store, std::int64_t epoch) const {
  std::lock_guard lock(mutex_);
  const auto it = by_store_.find(std::string(store));
  if (it == by_store_.end() || it->second.epoch != epoch) return std::nullopt;
  return it->second.lsn;
}

void WritePositions::raise(std::string_view store, std::int64_t epoch, std::uint64_t lsn) {
  std::lock_guard lock(mutex_);
  Position& at = by_store_[std::string(store)];
  if (epoch < at.epoch) return;
  if (epoch > at.epoch) at = Position{epoch, 0};
  at.lsn = std::max(at.lsn, lsn);
}

}  // namespace storeapi::db
