#include "api/dispatcher_wake.hpp"

#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::api {

const db::Statement kWakeDispatchers{"dispatcher_wake", "select api.wake_dispatchers()", 0};

void DispatcherWake::wake() {
  pending_ = true;
  if (sending_) return;
  sending_ = true;
  runtime::spawn(send());
}

runtime::task<void> DispatcherWake::send() {
  while (pending_) {
    pending_ = false;
    db::Unit unit;
    unit.add(kWakeDispatchers, {});
    co_await pool_.run(unit);  // a failure loses one wake-up; the dispatchers' polling covers it
    co_await runtime::sleep_for(kMinInterval);
  }
  sending_ = false;
}

}  // namespace storeapi::api
