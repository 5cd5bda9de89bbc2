#pragma once
// A store's row of `store_fences` on each side of a move (sql/034_pods.sql): held on the
// target from the start (the copy's rows are not to be written or dispatched there: its
// dispatcher would send the store's events a second time), the pause of its dispatch and
// the fence of its writes on the source, the lift on the target once the directory places
// the store there. The source keeps its fenced row afterwards as the store's tombstone.
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

// On the target, in the caller's transaction, before the copy: the store's writes fenced
// and its dispatch paused there until the lift.
void hold_on_target(pqxx::transaction_base& work, const std::string& store_id, std::int64_t epoch);

// On the source: waits for the store's writes in flight and holds every later one
// (api.fence_store_writes), its dispatch still paused.
void fence_writes(pqxx::connection& source, const std::string& store_id, std::int64_t epoch);

// On the pod that now holds the store: writes and dispatch resume, at the placement's epoch.
void lift_fence(pqxx::connection& pod, const std::string& store_id, std::int64_t epoch);

// On the pod the store stays on after an abandoned move: writes and dispatch resume, as
// they were before it.
void resume_store(pqxx::connection& pod, const std::string& store_id);

// In the caller's transaction on the pod the store left, its rows deleted: its writes stay
// fenced there, so a node that still places the store there is refused, and its dispatch
// resumes: nothing of it is left to send but, on main, the e-mails the directory queues
// for its keys whatever pod holds it.
void keep_tombstone(pqxx::transaction_base& work, const std::string& store_id);

}  // namespace storeapi::admin
