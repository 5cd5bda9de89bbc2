#pragma once
// What the outbox keeps and for how long (sql/033_outbox_partitions.sql): the retention the
// dispatcher applies, as it recorded it, and the time slots that hold the rows.
#include "admin/base/json.hpp"
#include "common/retention.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// The retention the dispatcher recorded; the defaults while none has run.
Retention applied_retention(pqxx::work& work);

// "30 days", "2 hours", "90 s": a retention for people.
std::string describe(std::chrono::seconds period);

// {"object":"retention", the retention, what it covers and what is kept for good, and
// every slot with its bounds, when it may go, its size and whether work in it is pending}.
void write_retention(JsonWriter& json, pqxx::work& work);

}  // namespace storeapi::admin
