// The dispatcher killed (SIGKILL) again and again while events keep arriving: every
// event is delivered in the end, and the duplicates (deliveries whose outcome died with a
// dispatcher, sent again by the next) are counted and bounded by what can be in flight
// at a kill: at most the dispatcher's concurrency per kill.
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "dispatch/dispatch_fixture.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;
using DispatchChaos = DispatchTest;

// webhook-id of an event: "evt_" and its uuid without dashes.
std::string webhook_id(std::string event) {
  event.erase(std::remove(event.begin(), event.end(), '-'), event.end());
  return "evt_" + event;
}

TEST_F(DispatchChaos, KilledRepeatedlyWhileEventsFlowDeliversEveryEvent) {
  constexpr int kRounds = 6;
  constexpr int kEventsPerRound = 10;
  constexpr int kConcurrency = 4;
  WebhookReceiver receiver;
  // Slow answers, so that kills find transfers in flight.
  receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) { return n % 3 == 0 ? Reply{200, 150ms} : Reply{}; });
  add_endpoint(receiver.url());

  Settings s = settings();
  s["STOREAPI_DISPATCH_CONCURRENCY"] = std::to_string(kConcurrency);
  s["STOREAPI_DISPATCH_BATCH"] = "5";
  std::set<std::string> emitted;
  std::mt19937 random(11);
  int number = 5000;
  for (int round = 0; round < kRounds; ++round) {
    DispatcherProcess dispatcher(s);
    for (int i = 0; i < kEventsPerRound; ++i) {
      emitted.insert(webhook_id(emit_order_event(number++)));
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 40));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + random() % 300));
    dispatcher.kill();
  }

  DispatcherProcess last(settings());
  ASSERT_TRUE(eventually([&] {
    return value("select count(*) from webhook_deliveries where status = 'succeeded'") ==
           std::to_string(emitted.size());
  }, 120s)) << last.stderr_text();
  EXPECT_EQ(last.terminate(), 0);

  std::map<std::string, int> received;
  for (const auto& r : receiver.requests()) ++received[r.header("webhook-id")];
  std::size_t delivered = 0, duplicates = 0;
  for (const auto& id : emitted) {
    const int times = received.contains(id) ? received[id] : 0;
    EXPECT_GE(times, 1) << id << " was never delivered";
    if (times > 0) ++delivered;
    if (times > 1) duplicates += static_cast<std::size_t>(times - 1);
  }
  EXPECT_EQ(received.size(), emitted.size()) << "a delivery of an event nobody emitted";
  EXPECT_LE(duplicates, static_cast<std::size_t>(kRounds * kConcurrency)) << "more repeats than transfers in flight";
  std::printf("chaos dispatch: %d kills, %zu events, %zu delivered, %zu duplicates (bound %d)\n", kRounds,
              emitted.size(), delivered, duplicates, kRounds * kConcurrency);
}

}  // namespace
}  // namespace storeapi::testing
