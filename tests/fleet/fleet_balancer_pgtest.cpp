// The fleet behind HAProxy (round robin, health checks on /readyz), as users run it:
// restarting each node in turn under load fails no request, because a stopping node
// turns unready and keeps serving until HAProxy has taken it out, and a starting node
// listens only once it can serve.
#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

#include "fleet/fleet_fixture.hpp"
#include "support/haproxy_process.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

using FleetBehindBalancer = FleetTest;

TEST_F(FleetBehindBalancer, RestartingEachNodeInTurnUnderLoadFailsNoRequest) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "1000000"});
  auto key = create_key(store.id);
  HaproxyProcess balancer({node_a().port(), node_b().port()});

  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, failed{0};
  std::mutex mutex;
  std::string first_failure;
  auto load = [&] {
    std::optional<HttpClient> client;
    while (!stop) {
      try {
        if (!client) client.emplace(balancer.port(), kReplyTimeout);
        HttpResponse r = client->get("/v1/store", bearer(key.key));
        if (r.status == 200) {
          ++answered;
          continue;
        }
        std::lock_guard lock(mutex);
        if (first_failure.empty()) first_failure = std::to_string(r.status) + " " + r.body;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (first_failure.empty()) first_failure = e.what();
      }
      ++failed;
      client.reset();
    }
  };
  std::thread first(load), second(load);
  EXPECT_TRUE(eventually([&] { return answered > 100; }));

  for (std::unique_ptr<ServerProcess>* node : {&server_, &node_b_}) {
    const std::uint16_t port = (*node)->port();
    (*node)->signal(SIGTERM);
    EXPECT_EQ((*node)->wait_exit(std::chrono::seconds(30)), 0) << (*node)->stderr_text();
    *node = start_node(port);
    EXPECT_TRUE(eventually([&] { return balancer.servers_up() == 2; }));
    const int before = answered;
    EXPECT_TRUE(eventually([&] { return answered > before + 100; }));
  }
  stop = true;
  first.join();
  second.join();
  EXPECT_EQ(failed, 0) << "of " << answered + failed << "; first: " << first_failure;
}

}  // namespace
}  // namespace storeapi::testing
