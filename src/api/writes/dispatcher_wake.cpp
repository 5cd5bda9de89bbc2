#include "api/writes/dispatcher_wake.hpp"

#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::api {

namespace {
constexpr db::Column kWoken[] = {{"wake_dispatchers", db::Type::void_}};
constexpr db::Column kNotified[] = {{"notify_dispatchers", db::Type::void_}};
}  // namespace

const db::Statement kWakeDispatchers{"dispatcher_wake", "select api.wake_dispatchers()", {}, kWoken};
const db::Statement kNotifyDispatchers{"dispatcher_notify", "select api.notify_dispatchers()", {}, kNotified};

bool WakeTurns::take_turn(Clock::time_point now) {
  if (now < next_turn_) return false;
  next_turn_ = now + interval_;
  carrier_took_over_ = uncovered_;
  uncovered_ = false;
  return true;
}

void WakeTurns::sent(Clock::time_point now) {
  next_turn_ = now + interval_;
  uncovered_ = false;
}

DispatcherWake::~DispatcherWake() {
  // Queued only on its core, which would run the hook unless it is forgotten (a core that
  // stopped runs nothing more).
  if (!start_sending_.queued) return;
  if (runtime::Reactor* core = runtime::Reactor::current_or_null()) core->forget(start_sending_);
}

WakeTurn DispatcherWake::take_turn() { return WakeTurn(*this, turns_.take_turn(WakeTurns::Clock::now())); }

void DispatcherWake::start_sending(runtime::IterationEnd* hook) {
  runtime::spawn(static_cast<StartSending*>(hook)->wake->send());
}

runtime::task<void> DispatcherWake::send() {
  while (turns_.uncovered()) {
    const WakeTurns::Clock::time_point now = WakeTurns::Clock::now();
    if (now < turns_.send_due()) {
      co_await runtime::sleep_for(turns_.send_due() - now);
      continue;  // a write may have carried it meanwhile
    }
    turns_.sent(now);
    db::Unit unit;
    unit.add(kWakeDispatchers, {});
    co_await pool_.run(unit);  // a failure loses one wake-up; the dispatchers' polling covers it
  }
  sending_ = false;
}

}  // namespace storeapi::api
