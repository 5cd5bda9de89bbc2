#include "generator.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <system_error>
#include <vector>

#include "response_reader.hpp"
#include "runtime/cores.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"
#include "runtime/task.hpp"

namespace storeapi::bench {

using runtime::Clock;

std::chrono::nanoseconds intended_offset(const LoadPlan& plan, unsigned connection, std::uint64_t k) noexcept {
  const double slot = static_cast<double>(k) * plan.connections + connection;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(slot * 1e9 / plan.rate));
}

namespace {

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "connect to 127.0.0.1:" + std::to_string(port));
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// What one generator thread shares with its connections.
struct Core {
  const LoadPlan* plan;
  const RequestTemplate* requests;
  std::uint16_t port;
  Clock::time_point start;
  Clock::time_point end;        // nothing is due at or after this
  runtime::Deadline hard_stop;  // end + drain
  unsigned active = 0;
  LoadResult result;
  Clock::time_point last_answer;
};

enum class Outcome { answered, broken, timed_out };

// Sends `request` on `fd` and waits for its whole response.
runtime::task<Outcome> exchange(int fd, const std::string& request, std::vector<char>& buffer,
                                ResponseReader& reader, const runtime::Deadline& hard_stop) {
  for (std::size_t sent = 0; sent < request.size();) {
    const int n = co_await runtime::send(fd, request.data() + sent, request.size() - sent, &hard_stop);
    if (n == -ECANCELED) co_return Outcome::timed_out;
    if (n <= 0) co_return Outcome::broken;
    sent += static_cast<std::size_t>(n);
  }
  for (;;) {
    const int n = co_await runtime::recv(fd, buffer.data(), buffer.size(), &hard_stop);
    if (n == -ECANCELED) co_return Outcome::timed_out;
    if (n <= 0) co_return Outcome::broken;
    switch (reader.feed(buffer.data(), static_cast<std::size_t>(n))) {
      case ResponseReader::Progress::need_more:
        break;
      case ResponseReader::Progress::complete:
        co_return Outcome::answered;
      case ResponseReader::Progress::malformed:
        co_return Outcome::broken;
    }
  }
}

// One connection's requests, `connection` being its index among all connections. A
// failed reconnect ends the process (an exception escaping a detached task): the run's
// figures would be meaningless anyway.
runtime::task<void> drive(Core& core, unsigned connection, int fd) {
  const LoadPlan& plan = *core.plan;
  const bool open_loop = plan.rate > 0;
  std::vector<char> buffer(64 * 1024);
  std::string request;
  auto reader = std::make_unique<ResponseReader>();
  if (const auto now = Clock::now(); now < core.start) co_await runtime::sleep_for(core.start - now);
  for (std::uint64_t k = 0;; ++k) {
    const Clock::time_point due = open_loop ? core.start + intended_offset(plan, connection, k) : Clock::now();
    if (due >= core.end) break;
    if (const auto now = Clock::now(); due > now) co_await runtime::sleep_for(due - now);
    core.requests->render(k * plan.connections + connection, request);
    const Outcome outcome = co_await exchange(fd, request, buffer, *reader, core.hard_stop);
    const auto answered_at = Clock::now();
    if (outcome == Outcome::timed_out) {
      // This request and every later one due before the end went unanswered.
      std::uint64_t left = 1;
      if (open_loop)
        while (core.start + intended_offset(plan, connection, k + left) < core.end) ++left;
      core.result.unfinished += left;
      break;
    }
    if (outcome == Outcome::broken) {
      ++core.result.broken;
      ::close(fd);
      fd = connect_to(core.port);
      reader = std::make_unique<ResponseReader>();
      continue;
    }
    core.result.latency.record(static_cast<std::uint64_t>((answered_at - due).count()));
    ++core.result.answered;
    if (reader->status() < 200 || reader->status() > 299) ++core.result.non_2xx;
    core.last_answer = std::max(core.last_answer, answered_at);
  }
  ::close(fd);
  if (--core.active == 0) runtime::Reactor::current().stop();
}

}  // namespace

LoadResult run_load(const LoadPlan& plan, const RequestTemplate& requests, std::uint16_t port) {
  const unsigned threads = std::max(1u, std::min(plan.threads, plan.connections));
  // Connections and reactors are set up before the start, so the first requests are not
  // late for want of a socket.
  const auto start = Clock::now() + std::chrono::milliseconds(100);
  std::vector<Core> cores(threads);
  for (auto& core : cores) {
    core.plan = &plan;
    core.requests = &requests;
    core.port = port;
    core.start = start;
    core.end = start + plan.duration;
    core.hard_stop = runtime::Deadline::at(core.end + plan.drain);
    core.last_answer = start;
  }
  // runtime::Cores pins each thread to one CPU, as the server wants its cores; a load
  // generator sharing the machine with the server is better left to the scheduler.
  cpu_set_t allowed;
  const bool unpin = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  runtime::Cores generator(threads, [&](runtime::Reactor& reactor) {
    if (unpin) ::sched_setaffinity(0, sizeof allowed, &allowed);
    Core& core = cores[reactor.index()];
    std::vector<std::pair<unsigned, int>> connections;  // index, socket
    for (unsigned c = reactor.index(); c < plan.connections; c += threads) connections.emplace_back(c, connect_to(port));
    core.active = static_cast<unsigned>(connections.size());
    for (auto [c, fd] : connections) runtime::spawn(drive(core, c, fd));
  });
  generator.join();

  LoadResult total;
  auto last = start;
  for (const auto& core : cores) {
    total.latency.merge(core.result.latency);
    total.answered += core.result.answered;
    total.non_2xx += core.result.non_2xx;
    total.broken += core.result.broken;
    total.unfinished += core.result.unfinished;
    last = std::max(last, core.last_answer);
  }
  total.seconds = std::chrono::duration<double>(last - start).count();
  return total;
}

}  // namespace storeapi::bench
