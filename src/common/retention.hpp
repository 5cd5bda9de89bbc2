#pragma once
// How long the outbox (events, webhook deliveries and their attempts, e-mail
// notifications) is kept, and the width of the time partitions it is dropped by
// (docs/DECISIONS.md, "Retention"). Read by storeapi-dispatch, which expires the
// partitions, and by `storeapi-admin migrate`, which creates the first ones.
#include <chrono>

namespace storeapi {

struct Retention {
  std::chrono::seconds keep{30 * 86'400};      // STOREAPI_RETENTION_SECONDS
  std::chrono::seconds partition{86'400};      // STOREAPI_PARTITION_SECONDS
  // Partitions exist this many widths ahead of now: writes need one for their time, so
  // the dispatcher may be away this long (a week by default) before they fail.
  static constexpr int kPartitionsAhead = 7;

  std::chrono::seconds ahead() const { return partition * kPartitionsAhead; }

  // Reads both settings (the defaults where unset); a bad value throws env::SettingError.
  static Retention from_env();
};

}  // namespace storeapi
