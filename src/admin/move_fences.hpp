#pragma once
// A store's row of `store_fences` on each side of a move (sql/034_pods.sql): the pause of
// its dispatch and the fence of its writes on the source, their arrival on the target,
// the lift on the target once the directory places the store there. The source keeps its
// fenced row afterwards as the store's tombstone there.
#include <pqxx/pqxx>

#include <chrono>
#include <cstdint>
#include <string>

namespace storeapi::admin {

// On the source: its dispatchers claim nothing more of the store. Then waits, at most
// `limit`, until the deliveries and e-mails they had claimed have their outcomes recorded
// (recorded on the source, they move with the rest; recorded after the cut-over, they
// would be lost and sent again by the target's dispatcher). Returns how many were still
// claimed when the wait ended.
std::int64_t pause_dispatch(pqxx::connection& source, const std::string& store_id, std::int64_t epoch,
                            std::chrono::milliseconds limit);

// On the source: waits for the store's writes in flight and holds every later one
// (api.fence_store_writes). Returns the fence's time stamp, which marks its row.
std::string fence_writes(pqxx::connection& source, const std::string& store_id, std::int64_t epoch);

// Waits, at most `limit`, until the fence row stamped `fenced_at` has reached the target:
// changes apply in commit order, so every write the source committed before it is there.
// Throws CommandError past the limit.
void wait_fence_arrived(pqxx::connection& target, const std::string& store_id, const std::string& fenced_at,
                        std::chrono::milliseconds limit);

// On the pod that now holds the store: writes and dispatch resume, at the placement's epoch.
void lift_fence(pqxx::connection& pod, const std::string& store_id, std::int64_t epoch);

// On the pod the store stays on after an abandoned move: writes and dispatch resume, as
// they were before it.
void resume_store(pqxx::connection& pod, const std::string& store_id);

}  // namespace storeapi::admin
