// GET /v1/bookings and GET /v1/bookings/{id}. The bookings list takes no updated_after /
// updated_before (the spec leaves them out; a booking shows no updated_at).
#include "api/endpoints.hpp"
#include "api/page.hpp"
#include "api/record.hpp"
#include "api/value_sets.hpp"

namespace storeapi::api {
namespace {

constexpr FilterSpec kFilters[] = {
    {"status", FilterRule::one_of, kBookingStatuses, "($?::text is null or r.status = $?::text)"},
};

constexpr ListSpec kList{RouteId::bookings_list, false, kFilters};

}  // namespace

const ReadStatements& booking_reads() {
  static const ReadStatements reads("bookings", kList);
  return reads;
}

runtime::task<void> list_bookings(Context& ctx) { return serve_list(ctx, kList, booking_reads()); }

runtime::task<void> get_booking(Context& ctx) { return serve_record(ctx, booking_reads().by_id()); }

}  // namespace storeapi::api
