#pragma once
// What happened to a store's events: deliveries with every attempt, and redelivery.
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <optional>
#include <string>

namespace storeapi::admin {

// {"object":"list","data":[deliveries newest first, each with its attempts],"has_more"}:
// the store's (or one event's) next `limit` deliveries, after `starting_after` (a delivery
// id: the last of the page before) when given. Only what the retention keeps is there.
// Events are named "evt_<32 hex>" (the payload's id) or by their uuid. CommandError for an
// unknown store, or an event or delivery not in the store (or expired).
void write_deliveries(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                      const std::optional<std::string>& event, long limit,
                      const std::optional<std::string>& starting_after);

// The store of the event ("evt_<32 hex>" or its uuid); nullopt when this database has no
// such event.
std::optional<std::string> event_store(pqxx::work& work, const std::string& event);

// Queues the event again for every enabled endpoint of its store that subscribes to its
// type: an existing delivery goes back to pending with a fresh retry schedule (whatever
// its state), a missing one is created; then the dispatchers are woken. `store_id`
// narrows the search (an index lookup); without it every store is searched. CommandError
// when the event is unknown (or already expired), past the retention period (its slot may
// go any moment), or no endpoint would receive it.
void redeliver_event(JsonWriter& json, pqxx::work& work, const std::string& event,
                     const std::optional<std::string>& store_id);

}  // namespace storeapi::admin
