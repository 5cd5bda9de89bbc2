#pragma once
// `storeapi-admin store move --store ID --to POD`: moves a store's rows from its pod to
// another online, with PostgreSQL's logical replication (docs/DECISIONS.md, "Pods"):
//
//   checks          the store and the pods; the source writes logical WAL; same schema;
//                   the target's outbox partitions take the store's rows
//   prepare         the target's rows of the store (an earlier attempt's, a tombstone)
//                   deleted, its writes and dispatch held there; the move recorded in
//                   the directory (store_moves)
//   copy            publication with a row filter per table on the source, subscription
//                   on the target; every table's initial copy done
//   catch_up        the target has applied the source's WAL of now
//   dispatch_pause  the source's dispatchers leave the store; their claims finish
//   fence           the source holds the store's writes (waiting for those in flight);
//                   the target applies the source's WAL up to the fence's commit
//   detach          subscription, slot and publication dropped
//   flip            the directory places the store on the target, epoch + 1, announced
//                   to every server (`store:<id>`), their confirmations awaited
//   lift            the target serves the store's writes and dispatch
//   cleanup         the store's rows deleted from the source; its fence row stays there
//                   as a tombstone
//
// The write pause runs from the fence to the lift. Each phase starts with a line on
// stderr ("storeapi-admin: store move: <phase>"); the JSON printed at the end has what
// each took. A move that stops before the flip (killed, an error, a pod down) leaves the
// store served from the source; run the command again: it undoes what is left and starts
// again, or, when the flip was made, finishes.
#include "admin/base/json.hpp"
#include "admin/base/pod_connection.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// The store id is taken in any case; the move locks and names it in lower case.
void move_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id,
                const std::string& target_pod);

}  // namespace storeapi::admin
