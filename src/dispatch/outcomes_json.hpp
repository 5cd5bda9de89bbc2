#pragma once
// Outcomes as the JSON arrays the record statements read with jsonb_to_recordset (one
// round trip per batch); member names match those statements' column lists.
#include "dispatch/jobs.hpp"

#include <span>
#include <string>

namespace storeapi::dispatch {

// [{"i","store_id","delivery_id","attempt","attempted_at","status","latency_ms",
//   "response","error","retry_ms"}, ...]; "i" is the position, absent values are null.
std::string outcomes_json(std::span<const DeliveryOutcome> outcomes);

// [{"store_id","id","attempt","sent","error","retry_ms"}, ...]
std::string outcomes_json(std::span<const NotificationOutcome> outcomes);

}  // namespace storeapi::dispatch
