#pragma once
// `storeapi-admin store move --store ID --to POD`: moves a store's rows from its pod to
// another online, with PostgreSQL's logical replication (docs/DECISIONS.md, "Pods"). Its
// phases, in order (admin/move/phases.hpp: the names it reports, three of them also what
// `store_moves.phase` records), each a function of store_move.cpp's phase table:
//
//   checks          the store and the pods; the source writes logical WAL; same schema;
//                   the target's outbox partitions take the store's rows
//   prepare         the target's rows of the store (an earlier attempt's, a tombstone)
//                   deleted, its writes and dispatch held there; the move recorded in
//                   the directory (store_moves) as `copying`
//   copying         publication with a row filter per table on the source, subscription
//                   on the target; every table's initial copy done
//   catch_up        the target has applied the source's WAL of now
//   dispatch_pause  the source's dispatchers leave the store; their claims finish
//   fence           the source holds the store's writes (waiting for those in flight);
//                   the target applies the source's WAL up to the fence's commit
//   detach          subscription, slot and publication dropped
//   flipped         the directory places the store on the target, epoch + 1, and records
//                   the move `flipped` in the same transaction; announced to every server
//                   (`store:<id>`), their confirmations awaited
//   lift            the target serves the store's writes and dispatch
//   cleanup         the store's rows deleted from the source; its fence row stays there
//                   as a tombstone; the move recorded `done`
//
// The write pause runs from the fence to the lift. Each phase starts with a line on
// stderr ("storeapi-admin: store move: <phase>"); the JSON printed at the end has what
// each took. A move that stops while recorded `copying` (killed, an error, a pod down)
// leaves the store served from the source: the phase `undo` takes it back, at once when
// the process can, else first thing in the next run of the command, which then starts
// again. One stopped once recorded `flipped` is finished by the next run (detach again,
// lift, cleanup).
#include "admin/base/json.hpp"
#include "admin/base/pod_connection.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// The store id is taken in any case; the move locks and names it in lower case.
void move_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id,
                const std::string& target_pod);

}  // namespace storeapi::admin
