// sd_notify without libsystemd: the datagram reaches $NOTIFY_SOCKET, abstract or a path.
#include "common/service_notify.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "support/notify_socket.hpp"

namespace storeapi {
namespace {

using namespace std::chrono_literals;

// Sets NOTIFY_SOCKET for one test, restoring "unset" afterwards.
struct NotifyEnv {
  explicit NotifyEnv(const std::string& value) { ::setenv("NOTIFY_SOCKET", value.c_str(), 1); }
  ~NotifyEnv() { ::unsetenv("NOTIFY_SOCKET"); }
};

TEST(ServiceNotify, SendsToAnAbstractSocket) {
  testing::NotifySocket socket;
  NotifyEnv env(socket.name());
  EXPECT_TRUE(notify_service_manager("READY=1"));
  EXPECT_EQ(socket.receive(5s), "READY=1");
  EXPECT_TRUE(notify_service_manager("STOPPING=1"));
  EXPECT_EQ(socket.receive(5s), "STOPPING=1");
}

TEST(ServiceNotify, SendsToASocketPath) {
  const std::string path = std::filesystem::temp_directory_path() / ("storeapi-notify-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.copy(address.sun_path, sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  NotifyEnv env(path);
  EXPECT_TRUE(notify_service_manager("READY=1"));
  char buffer[64];
  const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(std::max<ssize_t>(n, 0))), "READY=1");
  ::close(fd);
  std::filesystem::remove(path);
}

TEST(ServiceNotify, DoesNothingOutsideSystemd) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(notify_service_manager("READY=1"));
  NotifyEnv relative("relative/path");  // neither a path nor an abstract name
  EXPECT_FALSE(notify_service_manager("READY=1"));
}

}  // namespace
}  // namespace storeapi
