// redis::Client::changed(): a coroutine already waiting when the first connection attempt
// ends is woken by it. A node waits on it before serving (api::Application), so a Redis
// that answers that attempt slowly must not leave the node waiting for good. The fake
// Redis here is a loopback socket of the test's own that answers the handshake only once
// someone waits on changed().
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "redis/client.hpp"
#include "redis/endpoint.hpp"
#include "runtime/event.hpp"
#include "runtime/io.hpp"
#include "runtime/net.hpp"
#include "runtime/reactor.hpp"
#include "runtime/spawn.hpp"
#include "support/run_task.hpp"

namespace storeapi::redis {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kScript = "return 1";
// Far beyond a loopback round trip: reached only when the wake-up never comes.
constexpr auto kBound = 5s;

// Accepts the client's connection on `listener`, reads its SCRIPT LOAD whole, notes
// whether someone waits on the client's changed() by then, and only then answers.
runtime::task<void> slow_redis(int listener, Client& client, int& connection, std::optional<bool>& waited_on) {
  const auto deadline = runtime::Deadline::after(kBound);
  if (co_await runtime::poll(listener, POLLIN, &deadline) < 0) co_return;
  connection = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (connection < 0) co_return;
  const std::string command_end = std::string(kScript) + "\r\n";
  std::string received;
  char buffer[512];
  while (!received.ends_with(command_end)) {
    const int n = co_await runtime::recv(connection, buffer, sizeof buffer, &deadline);
    if (n <= 0) co_return;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  waited_on = client.changed().has_waiters() && !client.settled();
  const std::string digest = "$40\r\n" + std::string(40, 'e') + "\r\n";
  co_await runtime::send(connection, digest.data(), digest.size(), &deadline);
}

TEST(ClientSettled, AWaiterIsWokenWhenASlowFirstAttemptEnds) {
  const int listener = runtime::listen_tcp({"127.0.0.1", 0}, 1, false);
  Client client({.endpoint = parse_endpoint("redis://127.0.0.1:" + std::to_string(runtime::local_port(listener))),
                 .scripts = {std::string(kScript)},
                 .timeout = kBound});
  int connection = -1;
  std::optional<bool> waited_on;
  runtime::Reactor reactor(0, {});
  const runtime::Woken how = testing::run_task(reactor, [&]() -> runtime::task<runtime::Woken> {
    client.start();
    runtime::spawn(slow_redis(listener, client, connection, waited_on));
    co_return co_await client.changed().wait_for(kBound);
  }());
  ASSERT_TRUE(waited_on.has_value()) << "the client's handshake never reached the fake Redis";
  EXPECT_TRUE(*waited_on) << "the handshake was answered before anyone waited";
  EXPECT_EQ(how, runtime::Woken::signalled) << "the settled first attempt woke nobody";
  EXPECT_TRUE(client.settled());
  EXPECT_TRUE(client.up());
  if (connection >= 0) ::close(connection);
  ::close(listener);
}

}  // namespace
}  // namespace storeapi::redis
