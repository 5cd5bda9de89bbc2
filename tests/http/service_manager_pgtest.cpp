// The server as systemd runs it: Type=notify readiness and stopping, and the start-up
// check that names a blocked io_uring instead of failing with a bare EPERM.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "healthz.hpp"
#include "support/notify_socket.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

TEST(ServiceManager, NotifiesReadyOnceServingAndStoppingOnSigterm) {
  NotifySocket notify;
  ProcessOptions options;
  options.env["NOTIFY_SOCKET"] = notify.name();
  ServerProcess server(options);
  EXPECT_EQ(notify.receive(30s), "READY=1");
  EXPECT_TRUE(serves_healthz(server.port()));  // ready meant serving
  server.signal(SIGTERM);
  EXPECT_EQ(notify.receive(30s), "STOPPING=1");
  EXPECT_EQ(server.wait_exit(30s), 0);
}

TEST(ServiceManager, ABlockedIoUringStopsTheStartWithTheCauseAndTheFix) {
  const std::string storeapi = std::string(std::getenv("STOREAPI_BUILD_DIR")) + "/storeapi";
  ProcessOptions options;
  options.binary = "tests/deny-io-uring";
  options.args = {storeapi};
  options.wait_for_listening = false;
  ServerProcess server(options);
  EXPECT_EQ(server.wait_exit(30s), 1);
  const std::string said = server.stderr_text();
  EXPECT_NE(said.find("cannot start: io_uring is not permitted here"), std::string::npos) << said;
  EXPECT_NE(said.find("seccomp"), std::string::npos) << said;
  EXPECT_EQ(said.find("listening"), std::string::npos) << said;
}

}  // namespace
}  // namespace storeapi::testing
