#include "common/retention.hpp"

#include "common/env.hpp"

#include <cstdint>

namespace storeapi {
namespace {

constexpr std::int64_t kTenYears = 10LL * 366 * 86'400;

}  // namespace

Retention Retention::from_env() {
  Retention out;
  std::int64_t keep = out.keep.count();
  std::int64_t partition = out.partition.count();
  env::read_number<std::int64_t>("STOREAPI_RETENTION_SECONDS", keep, 1, kTenYears);
  env::read_number<std::int64_t>("STOREAPI_PARTITION_SECONDS", partition, 1, kTenYears);
  // A partition is dropped whole once its newest rows are past the retention: wider than
  // the retention, it would keep rows for more than twice as long as asked.
  if (partition > keep)
    throw env::SettingError("STOREAPI_PARTITION_SECONDS (" + std::to_string(partition) +
                            ") must not exceed STOREAPI_RETENTION_SECONDS (" + std::to_string(keep) + ")");
  out.keep = std::chrono::seconds(keep);
  out.partition = std::chrono::seconds(partition);
  return out;
}

}  // namespace storeapi
