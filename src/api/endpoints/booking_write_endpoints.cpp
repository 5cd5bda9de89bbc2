// POST /v1/bookings/{id}/accept and /cancel. Neither takes a field; the states each
// allows are checked in api.change_booking.
#include "api/routing/endpoints.hpp"
#include "api/writes/write.hpp"
#include "api/writes/write_statements.hpp"

namespace storeapi::api {
namespace {

WriteCall read_accept(const Context& ctx, FieldValues) { return {kAcceptBooking, ctx.caller.store(), ctx.match.id}; }

WriteCall read_cancel(const Context& ctx, FieldValues) { return {kCancelBooking, ctx.caller.store(), ctx.match.id}; }

}  // namespace

runtime::task<void> post_booking_accept(Context& ctx) { return run_write(ctx, {{}, read_accept}); }

runtime::task<void> post_booking_cancel(Context& ctx) { return run_write(ctx, {{}, read_cancel}); }

}  // namespace storeapi::api
