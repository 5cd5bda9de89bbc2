// Restarting nodes without failed requests: a node listens only once every core can
// serve (no 503 for want of a database connection it was still opening); on SIGTERM its
// /readyz turns 503 at once while it keeps serving for STOREAPI_DRAIN_MS, then it finishes
// what is in flight and exits 0; a new process started beside the old one on the same
// port with STOREAPI_TAKEOVER=on (SO_REUSEPORT) takes over with no refused connection; one
// started without it on a busy port says so and exits 1, leaving every connection to the
// running one (without the check it starts and takes about half of the connections).
// The takeover seen failing: with STOREAPI_TAKEOVER ignored (app/main.cpp,
// `if (!config.takeover && runtime::port_taken(...))` made `if (runtime::port_taken(...))`,
// tools/mutants) the successor says the port is in use and exits 1. The old process's
// drain of its accept queue at close is held by unit-runtime
// (Acceptor.StoppingTakesTheConnectionsStillInItsQueue) rather than here: with
// net.ipv4.tcp_migrate_req on, the kernel itself hands that queue to the successor, and
// this test passes without the drain.
#include <atomic>
#include <csignal>
#include <fstream>
#include <thread>

#include "auth/auth_fixture.hpp"
#include "support/poll.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

class Restart : public AuthTest {
 protected:
  void SetUp() override {}  // each test starts its servers itself
};

// A kernel setting (/proc/sys) turned on for a test's run and put back after it.
class KernelSetting {
 public:
  KernelSetting(std::string path, std::string value) : path_(std::move(path)), value_(std::move(value)) {
    if (!(std::ifstream(path_) >> previous_)) return;  // a kernel without it
    if (previous_ == value_) {
      on_ = true;
      return;
    }
    std::ofstream out(path_);
    on_ = restore_ = static_cast<bool>(out << value_ << std::flush);  // false unless root
  }
  // Put back only if it still says what this wrote: a run beside this one may have set
  // it since.
  ~KernelSetting() {
    std::string now;
    if (restore_ && std::ifstream(path_) >> now && now == value_) std::ofstream(path_) << previous_;
  }
  KernelSetting(const KernelSetting&) = delete;
  KernelSetting& operator=(const KernelSetting&) = delete;
  bool on() const noexcept { return on_; }

 private:
  std::string path_, value_, previous_;
  bool on_ = false, restore_ = false;
};

int status_of_fresh_request(std::uint16_t port, const std::string& target, const Headers& headers = {}) {
  try {
    return HttpClient(port, kReplyTimeout).get(target, headers).status;
  } catch (const std::exception&) {
    return 0;  // refused, reset or unanswered
  }
}

TEST_F(Restart, ListensOnlyOnceEveryCoreIsReady) {
  for (int round = 0; round < 3; ++round) {
    launch_server(4, 2);  // more cores than CPUs: each opens its connections later
    // The very first connections, on whichever core, find it ready.
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(status_of_fresh_request(server().port(), "/readyz"), 200) << "round " << round << ", request " << i;
  }
}

TEST_F(Restart, SigtermTurnsReadyzOffWhileServingForTheDrainPeriod) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  launch_server(2, 2, {{"STOREAPI_DRAIN_MS", "3000"}});
  ASSERT_TRUE(wait_connected());
  HttpClient kept(server().port(), kReplyTimeout);  // a keep-alive connection from before
  ASSERT_EQ(kept.get("/v1/store", bearer(key.key)).status, 200);
  const auto signalled = std::chrono::steady_clock::now();
  server().signal(SIGTERM);
  EXPECT_TRUE(eventually([&] { return status_of_fresh_request(server().port(), "/readyz") == 503; }));
  // Still serving: new connections and old ones.
  EXPECT_EQ(status_of_fresh_request(server().port(), "/v1/store", bearer(key.key)), 200);
  EXPECT_EQ(status_of_fresh_request(server().port(), "/healthz"), 200);
  EXPECT_EQ(kept.get("/v1/store", bearer(key.key)).status, 200);
  EXPECT_EQ(server().wait_exit(std::chrono::seconds(30)), 0) << server().stderr_text();
  EXPECT_GE(std::chrono::steady_clock::now() - signalled, std::chrono::milliseconds(3000));
}

// With the setting dist/sysctl installs: without it, a connection that completes its
// handshake between the old process's last accept and its close is reset by the kernel
// (docs/DECISIONS.md "Starting and stopping"; seen once in ~5,000 requests).
TEST_F(Restart, ANewProcessOnTheSamePortTakesOverWithNoRefusedConnection) {
  KernelSetting migrate("/proc/sys/net/ipv4/tcp_migrate_req", "1");
  if (!migrate.on()) GTEST_SKIP() << "needs net.ipv4.tcp_migrate_req = 1 (dist/sysctl/storeapi.conf), or root to set it";
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "1000000"});
  auto key = create_key(store.id);
  launch_server(2, 2, {{"STOREAPI_DRAIN_MS", "1000"}});
  ASSERT_TRUE(wait_connected());
  const std::uint16_t port = server().port();

  std::atomic<int> answered{0}, failed{0};
  // Stopped and joined also when a step below throws (a successor that does not start).
  std::jthread client([&](std::stop_token stop) {
    while (!stop.stop_requested()) {
      int status = status_of_fresh_request(port, "/v1/store", bearer(key.key));
      (status == 200 ? answered : failed)++;
    }
  });
  EXPECT_TRUE(eventually([&] { return answered > 20; }));
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db_)}, {"STOREAPI_THREADS", "2"}, {"STOREAPI_ACCESS_LOG", "off"},
                 {"STOREAPI_LISTEN", "127.0.0.1:" + std::to_string(port)}, {"STOREAPI_TAKEOVER", "on"}};
  ServerProcess successor(options);  // returns once it listens, i.e. once it is ready
  server().signal(SIGTERM);
  EXPECT_EQ(server().wait_exit(std::chrono::seconds(30)), 0) << server().stderr_text();
  const int before = answered;
  EXPECT_TRUE(eventually([&] { return answered > before + 20; }));  // the successor alone
  client.request_stop();
  client.join();
  EXPECT_EQ(failed, 0) << "of " << answered + failed;
  EXPECT_TRUE(successor.running());
}

TEST_F(Restart, ASecondServerOnABusyPortSaysSoAndStops) {
  launch_server(2, 2);
  ASSERT_TRUE(wait_connected());
  const std::uint16_t port = server().port();
  ProcessOptions options;
  options.env = {{"STOREAPI_THREADS", "2"}, {"STOREAPI_ACCESS_LOG", "off"}, {"STOREAPI_METRICS_LISTEN", "off"},
                 {"STOREAPI_LISTEN", "127.0.0.1:" + std::to_string(port)}};
  options.wait_for_listening = false;
  ServerProcess second(options);
  EXPECT_EQ(second.wait_exit(std::chrono::seconds(30)), 1) << second.stderr_text();
  EXPECT_NE(second.stderr_text().find("STOREAPI_LISTEN 127.0.0.1:" + std::to_string(port) +
                                      " is in use (another storeapi, or a second tools/run?)"),
            std::string::npos)
      << second.stderr_text();
  EXPECT_EQ(second.stderr_text().find("listening on"), std::string::npos) << second.stderr_text();
  // The first server serves on as before.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(status_of_fresh_request(port, "/healthz"), 200) << "request " << i;
  EXPECT_TRUE(server().running());
}

}  // namespace
}  // namespace storeapi::testing
