#include "dispatch/outcomes_json.hpp"

#include <gtest/gtest.h>

namespace storeapi::dispatch {
namespace {

TEST(OutcomesJson, DeliveriesWithEveryFieldAndNullsForAbsentOnes) {
  DeliveryOutcome ok{"s1", "d1", 2, 1'795'301'819'123'000, 200, 12, std::string("ok \"quoted\"\n"), std::nullopt,
                     std::nullopt, "4bf92f3577b34da6a3ce929d0e0e4736", 1'795'301'818'001'000};  // the trace id is for the log only
  DeliveryOutcome timeout{"s1", "d2", 1, 1'795'301'819'000'000, std::nullopt, 1000, std::nullopt,
                          std::string("Operation timed out"), std::chrono::milliseconds(4500), "",
                          1'795'301'818'002'000};
  std::vector<DeliveryOutcome> outcomes{ok, timeout};
  EXPECT_EQ(outcomes_json(outcomes),
            R"([{"i":0,"store_id":"s1","delivery_id":"d1","attempt":2,"attempted_at":"2026-11-21T22:56:59.123Z",)"
            R"("status":200,"latency_ms":12,"response":"ok \"quoted\"\n","error":null,"retry_ms":null,)"
            R"("event_created_at":"2026-11-21T22:56:58.001Z"},)"
            R"({"i":1,"store_id":"s1","delivery_id":"d2","attempt":1,"attempted_at":"2026-11-21T22:56:59.000Z",)"
            R"("status":null,"latency_ms":1000,"response":null,"error":"Operation timed out","retry_ms":4500,)"
            R"("event_created_at":"2026-11-21T22:56:58.002Z"}])");
}

TEST(OutcomesJson, Notifications) {
  std::vector<NotificationOutcome> outcomes{{"s1", "n1", 1, true, "", std::nullopt, 1'795'301'818'001'000},
                                            {"s1", "n2", 3, false, "451 later", std::chrono::milliseconds(300),
                                             1'795'301'818'002'000}};
  EXPECT_EQ(outcomes_json(outcomes),
            R"([{"store_id":"s1","id":"n1","attempt":1,"sent":true,"error":"","retry_ms":null,)"
            R"("created_at":"2026-11-21T22:56:58.001Z"},)"
            R"({"store_id":"s1","id":"n2","attempt":3,"sent":false,"error":"451 later","retry_ms":300,)"
            R"("created_at":"2026-11-21T22:56:58.002Z"}])");
  EXPECT_EQ(outcomes_json(std::span<const NotificationOutcome>()), "[]");
}

}  // namespace
}  // namespace storeapi::dispatch
