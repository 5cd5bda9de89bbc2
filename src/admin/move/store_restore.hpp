#pragma once
// `storeapi-admin store restore --store ID --from URL`: puts one store back as it was at a
// time T while every other store of its pod keeps serving (docs/DEPLOY.md, "Backups and
// recovery"). URL is the store's pod database in a copy of that pod recovered to T
// (dist/pgbackrest/storeapi-recover --scratch, on a port of its own). The store move's
// pieces (admin/move/*.hpp), on the one pod that holds the store:
//
//   checks          the store, its pod; the copy has the pod's schema and the store; the
//                   pod's outbox partitions take the copy's rows of it
//   dispatch_pause  the pod's dispatchers leave the store; their claims finish
//   fence           the pod holds the store's writes (waiting for those in flight)
//   replace         one transaction on the pod: the store's rows deleted, the copy's rows of
//                   the store inserted, table by table
//   lift            writes and dispatch resume
//
// Replaced: every table of the store's data on the pod (admin/move/tables.hpp), so its
// catalogue, orders, stock and stock history, events and deliveries, e-mails and
// idempotency keys are all T's, consistent with each other. Kept: the fence row, the
// directory's facts (the `stores` and `staff_members` rows, which a pod other than main
// holds as copies, and API keys), and, on main, the key e-mails the directory queued for
// the store's owner. Reads of the store see its rows of now until the replace commits,
// then T's; its writes wait (503) from the fence to the lift. Interrupted, the store
// stays fenced; run the command again: each phase is repeated, and the replace, one
// transaction, happened whole or not at all.
#include "admin/base/json.hpp"
#include "admin/base/pod_connection.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// The pod is reached as the mover (admin/base/pod_connection.hpp), as a store move reaches it.
// The store id is taken in any case; the restore locks it in lower case.
void restore_store(JsonWriter& json, pqxx::connection& directory, const Mover& mover, const std::string& store_id_given,
                   const std::string& from_url);

}  // namespace storeapi::admin
