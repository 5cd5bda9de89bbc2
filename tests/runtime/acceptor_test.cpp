// Multishot accept (runtime/net.hpp) that runs out of file descriptors: the kernel ends
// the multishot with EMFILE; the acceptor must re-arm it and take the connections that
// waited once descriptors are free again. (The server itself cannot be driven there from
// outside: at start it keeps its connection cap within its open-file limit, see
// app/open_files.hpp.) And a stopping acceptor that takes what its queue still holds.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "runtime/io.hpp"
#include "runtime/net.hpp"
#include "support/run_task.hpp"

namespace storeapi::runtime {
namespace {

using namespace std::chrono_literals;
using testing::run_task;

int connect_to(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("connect");
  return fd;
}

TEST(Acceptor, ResumesAfterRunningOutOfFileDescriptors) {
  constexpr int kClients = 6;
  int listen_fd = listen_tcp({"127.0.0.1", 0});
  std::uint16_t port = local_port(listen_fd);
  Reactor reactor(0, {.sq_entries = 64});
  std::vector<int> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(connect_to(port));  // queued in the backlog

  // Room for two accepted descriptors at a time. The kernel reads the limit when an accept
  // is prepared: it is lowered before the acceptor arms.
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  int next_free = ::dup(0);
  ::close(next_free);
  rlimit few{static_cast<rlim_t>(next_free + 2), saved.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &few), 0);

  int accepted = 0;
  std::vector<int> open;
  Acceptor acceptor(listen_fd, [&](int fd) {
    ++accepted;
    open.push_back(fd);
  });
  bool all = run_task(reactor, [&]() -> task<bool> {
    acceptor.start();
    auto deadline = Clock::now() + 10s;
    bool ran_out = false;
    while (accepted < kClients && Clock::now() < deadline) {
      co_await sleep_for(20ms);
      if (open.size() == 2) ran_out = true;  // the limit is reached: accept must fail now
      if (ran_out) {
        for (int fd : open) ::close(fd);  // frees descriptors for the ones that wait
        open.clear();
      }
    }
    acceptor.stop();
    co_await sleep_for(20ms);  // lets the cancellation complete
    co_return accepted == kClients;
  }());
  ::setrlimit(RLIMIT_NOFILE, &saved);
  for (int fd : open) ::close(fd);
  for (int fd : clients) ::close(fd);
  EXPECT_TRUE(all) << accepted << " of " << kClients << " accepted";
}

// Closing a listener resets the connections still in its queue, whatever another
// process on the same port (a takeover, SO_REUSEPORT) could have done with them; stop()
// takes them first. Seen failing (0 of 3 taken, each client reset) with the accept loop
// in Acceptor::close_listener removed (tools/mutate --only 34).
TEST(Acceptor, StoppingTakesTheConnectionsStillInItsQueue) {
  constexpr int kClients = 3;
  int listen_fd = listen_tcp({"127.0.0.1", 0});
  std::uint16_t port = local_port(listen_fd);
  std::vector<int> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(connect_to(port));  // queued in the backlog
  std::vector<int> taken;
  Acceptor acceptor(listen_fd, [&](int fd) { taken.push_back(fd); });
  acceptor.stop();  // never started: closes the listener at once
  ASSERT_EQ(taken.size(), static_cast<std::size_t>(kClients));
  // Each is the client's live connection, not a reset one.
  for (int i = 0; i < kClients; ++i) {
    ASSERT_EQ(::send(clients[i], "x", 1, MSG_NOSIGNAL), 1) << "client " << i;
    char byte = 0;
    EXPECT_EQ(::recv(taken[i], &byte, 1, 0), 1) << "client " << i;
    EXPECT_EQ(byte, 'x');
  }
  for (int fd : taken) ::close(fd);
  for (int fd : clients) ::close(fd);
}

}  // namespace
}  // namespace storeapi::runtime
