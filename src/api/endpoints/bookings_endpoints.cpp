// GET /v1/bookings and GET /v1/bookings/{id}. The bookings list takes no updated_after /
// updated_before (the spec leaves them out; a booking shows no updated_at).
#include "api/routing/endpoints.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {

const ResourceReads& booking_reads() {
  static constexpr FilterSpec kFilters[] = {
      {"status", FilterRule::one_of, kBookingStatuses, "($?::text is null or r.status = $?::text)"},
  };
  static const ResourceReads reads("bookings", ListSpec{RouteId::bookings_list, false, kFilters});
  return reads;
}

}  // namespace storeapi::api
