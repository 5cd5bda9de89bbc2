// db::Standbys::settled(), which each core waits for before its node listens (a write
// before it would not know which standbys to wait for): false at start, true once every
// standby has had its first poll whatever it answered, and true anyway once a first poll
// has been awaited as long as an unanswered standby stays in use (1 s here), so that a
// standby that accepts connections but never answers holds the start back no longer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "db/standbys.hpp"
#include "runtime/io.hpp"
#include "support/run_task.hpp"

using namespace storeapi;
using namespace std::chrono_literals;
using storeapi::testing::run_on_reactor;

namespace {

std::string database_url() {
  const char* url = std::getenv("STOREAPI_TEST_DATABASE_URL");
  if (!url) ADD_FAILURE() << "STOREAPI_TEST_DATABASE_URL is not set: run the tests through tools/test";
  return url ? url : "";
}

const std::vector<db::Statement> kStatements{db::kReplayPosition};

TEST(DbStandbys, SettledOnceEachStandbyHasHadItsFirstPoll) {
  // The test cluster is a primary: its polls answer "not in recovery", so it is not in
  // use, but whether it is is known. A poll interval of 100 ms puts the bound at 5 s.
  db::Standbys standbys({.urls = {database_url()}, .poll = 100ms}, kStatements);
  run_on_reactor([&]() -> runtime::task<void> {
    standbys.start();
    EXPECT_FALSE(standbys.settled());
    co_await standbys.settle(runtime::Clock::now() + 4s);
    EXPECT_TRUE(standbys.settled()) << "no first poll within 4 s";
  });
}

TEST(DbStandbys, AStandbyThatNeverAnswersHoldsTheStartBackOnlyUntilTheBound) {
  // A listener nobody accepts on: connections complete in its backlog and then hear
  // nothing, so the pool's first attempt lasts its whole connect timeout (5 s).
  const int silent = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(silent, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(silent, 16), 0);
  socklen_t length = sizeof address;
  ::getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string url = "postgresql://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/storeapi";

  db::PoolOptions slow_connect;
  slow_connect.connect_timeout = 5s;
  db::Standbys standbys({.urls = {url}, .poll = 10ms, .pool = slow_connect}, kStatements);  // bound: 1 s
  run_on_reactor([&]() -> runtime::task<void> {
    standbys.start();
    EXPECT_FALSE(standbys.settled());
    co_await standbys.settle(runtime::Clock::now() + 4s);
    // Settled well before the connection's first attempt could have ended (5 s): by the
    // bound alone.
    EXPECT_TRUE(standbys.settled()) << "still waiting on a standby that never answers after 4 s";
  });
  ::close(silent);
}

}  // namespace
