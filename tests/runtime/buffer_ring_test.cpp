// The provided-buffer ring and its receive (runtime/buffer_ring.hpp): a waiting receive
// holds no buffer, a filled one is lent until the Received goes, and an empty ring ends a
// receive with -ENOBUFS.
#include "runtime/buffer_ring.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

#include "runtime/spawn.hpp"
#include "support/run_task.hpp"
#include "support/socket_pair.hpp"

namespace storeapi::runtime {
namespace {

using testing::run_task;
using testing::SocketPair;

Reactor::Options ring_of(unsigned buffers) {
  Reactor::Options options;
  options.sq_entries = 64;
  options.recv_buffers = buffers;
  options.recv_buffer_size = 64;
  return options;
}

TEST(BufferRing, ReceivedBytesAreLentUntilTheReceivedGoes) {
  Reactor reactor(0, ring_of(4));
  SocketPair pair;
  ASSERT_EQ(::write(pair.b, "hello", 5), 5);
  bool checked = run_task(reactor, [&]() -> task<bool> {
    BufferRing& ring = Reactor::current().recv_buffers();
    {
      Received got = co_await recv_provided(pair.a, ring);
      EXPECT_EQ(got.result(), 5);
      EXPECT_EQ(std::string(got.bytes().data(), got.bytes().size()), "hello");
      EXPECT_EQ(ring.lent(), 1u);
    }
    EXPECT_EQ(ring.lent(), 0u);
    co_return true;
  }());
  EXPECT_TRUE(checked);
}

// One buffer in the ring: a receive waiting on a silent socket must not hold it, or the
// socket that does receive bytes could not get it.
TEST(BufferRing, AWaitingReceiveHoldsNoBuffer) {
  Reactor reactor(0, ring_of(1));
  SocketPair silent, talking;
  std::string got = run_task(reactor, [&]() -> task<std::string> {
    BufferRing& ring = Reactor::current().recv_buffers();
    RecvProvided waiting = recv_provided(silent.a, ring);
    bool waiting_done = false;
    int waiting_result = 0;
    spawn([](RecvProvided& op, bool& done, int& result) -> task<void> {
      Received r = co_await op;
      result = r.result();
      done = true;
    }(waiting, waiting_done, waiting_result));
    EXPECT_EQ(::write(talking.b, "ping", 4), 4);
    std::string bytes;
    {
      Received r = co_await recv_provided(talking.a, ring);
      bytes = r.result() > 0 ? std::string(r.bytes().data(), r.bytes().size()) : "error " + std::to_string(r.result());
    }  // the buffer goes back: the waiting receive may take it now
    EXPECT_FALSE(waiting_done);
    ::shutdown(silent.b, SHUT_WR);  // ends the waiting receive (end of stream)
    while (!waiting_done) co_await sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(waiting_result, 0);
    co_return bytes;
  }());
  EXPECT_EQ(got, "ping");
}

TEST(BufferRing, AnEmptyRingEndsTheReceiveWithENOBUFS) {
  Reactor reactor(0, ring_of(1));
  SocketPair first, second;
  ASSERT_EQ(::write(first.b, "a", 1), 1);
  ASSERT_EQ(::write(second.b, "b", 1), 1);
  int second_result = run_task(reactor, [&]() -> task<int> {
    BufferRing& ring = Reactor::current().recv_buffers();
    Received held = co_await recv_provided(first.a, ring);
    EXPECT_EQ(held.result(), 1);
    Received starved = co_await recv_provided(second.a, ring);
    co_return starved.result();
  }());
  EXPECT_EQ(second_result, -ENOBUFS);
}

// An end of stream or a cancelled receive must not use the ring's buffers up: with one
// buffer, receives that end so, many times over, leave it for the next bytes.
TEST(BufferRing, EndsOfStreamAndCancelsLoseNoBuffer) {
  Reactor reactor(0, ring_of(1));
  int last = run_task(reactor, [&]() -> task<int> {
    BufferRing& ring = Reactor::current().recv_buffers();
    for (int i = 0; i < 8; ++i) {
      SocketPair closed;
      ::shutdown(closed.b, SHUT_WR);
      Received eof = co_await recv_provided(closed.a, ring);
      EXPECT_EQ(eof.result(), 0);
    }
    for (int i = 0; i < 8; ++i) {
      SocketPair silent;
      // The cancel must follow the receive's submission: it comes from a task that waits.
      spawn([](int fd) -> task<void> {
        co_await sleep_for(std::chrono::milliseconds(1));
        Reactor::current().cancel_fd(fd);
      }(silent.a));
      Received cancelled = co_await recv_provided(silent.a, ring);
      EXPECT_EQ(cancelled.result(), -ECANCELED);
    }
    SocketPair talking;
    EXPECT_EQ(::write(talking.b, "x", 1), 1);
    Received got = co_await recv_provided(talking.a, ring);
    co_return got.result();
  }());
  EXPECT_EQ(last, 1);
}

TEST(BufferRing, TheCountMustBeAPowerOfTwo) {
  EXPECT_THROW(Reactor(0, ring_of(3)), std::invalid_argument);
}

}  // namespace
}  // namespace storeapi::runtime
