#pragma once
// Two storeapi nodes on one database and one Redis (fleet mode), each a process of its
// own with two cores, as several API nodes behind a load balancer run; the auth fixture's
// helpers (admin tool, keys, error checks) work on node A (server()).
#include <memory>
#include <string>

#include "auth/auth_fixture.hpp"
#include "support/redis_process.hpp"

namespace storeapi::testing {

class FleetTest : public AuthTest {
 protected:
  void SetUp() override;

  // The settings of a fleet node: this test's Redis, no STOREAPI_SECRET (the fleet's), and
  // a drain period longer than the load balancer's health checks take to notice (2 × 100 ms).
  std::map<std::string, std::string> fleet_settings() const {
    return {{"STOREAPI_REDIS_URL", redis_.url()}, {"STOREAPI_DRAIN_MS", "1000"}};
  }
  // Another node of the fleet (on `port`, else a free one), returned once every core is ready.
  std::unique_ptr<ServerProcess> start_node(std::uint16_t port = 0);
  ServerProcess& node_a() { return server(); }
  ServerProcess& node_b() { return *node_b_; }
  HttpResponse get_on(ServerProcess& node, const std::string& target, const Headers& headers = {}) {
    return HttpClient(node.port(), kReplyTimeout).get(target, headers);
  }

  RedisProcess redis_;
  std::unique_ptr<ServerProcess> node_b_;
};

// How many times `text` occurs in `haystack`.
std::size_t occurrences(const std::string& haystack, const std::string& text);

}  // namespace storeapi::testing
