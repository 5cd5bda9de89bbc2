// POST /v1/bookings/{id}/accept and /cancel. Neither takes a field; the states each
// allows are checked in api.change_booking.
#include "api/routing/endpoints.hpp"
#include "api/writes/write.hpp"
#include "api/writes/write_statements.hpp"

namespace storeapi::api {
namespace {

void add_accept(db::Unit& unit, const Context& ctx, FieldValues, db::Param key, db::Param fingerprint) {
  unit.add(kAcceptBooking, {ctx.caller.store(), ctx.match.id, key, fingerprint, ctx.req.trace_id});
}

void add_cancel(db::Unit& unit, const Context& ctx, FieldValues, db::Param key, db::Param fingerprint) {
  unit.add(kCancelBooking, {ctx.caller.store(), ctx.match.id, key, fingerprint, ctx.req.trace_id});
}

}  // namespace

runtime::task<void> post_booking_accept(Context& ctx) { return run_write(ctx, {{}, nullptr, add_accept}); }

runtime::task<void> post_booking_cancel(Context& ctx) { return run_write(ctx, {{}, nullptr, add_cancel}); }

}  // namespace storeapi::api
