// Hostile clients beside normal ones, for a bounded time: slowloris connections that
// trickle a header byte at a time (and are replaced as the server cuts them off), and a
// flood of connections opened and reset, at once or after a silent while. Normal
// clients must keep being served: every request answered, 200 (or, while the flood fills
// the connection cap, its documented 503), most of them 200; and the server must be left
// serving with its descriptor count back to where it started.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/http_client.hpp"
#include "support/poll.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kDuration = 10s;
constexpr std::size_t kSlowloris = 64;
constexpr int kFlooders = 4;
constexpr int kNormalClients = 2;
// Silent connections each flooder holds before dropping them (the test process's and the
// server's descriptors stay well under the usual limit of 1024).
constexpr std::size_t kSilentPerFlooder = 100;

TEST(HttpChaos, SlowlorisAndConnectionFloodBesideNormalClients) {
  ServerProcess server({.env = {{"STOREAPI_REQUEST_TIMEOUT_MS", "2000"},
                                {"STOREAPI_IDLE_TIMEOUT_MS", "2000"},
                                {"STOREAPI_MAX_CONNECTIONS", "4096"}}});
  const std::size_t fds_before = server.open_fds();
  const auto end = std::chrono::steady_clock::now() + kDuration;
  auto running = [&] { return std::chrono::steady_clock::now() < end; };
  std::atomic<long> served{0}, over_cap{0}, failed{0}, loris_cut{0}, flood_connections{0};

  std::vector<std::thread> threads;
  // Slowloris: each connection trickles one byte every 100 ms until the server cuts it.
  // The first ones connect before the flood starts; replacements may find the backlog full.
  std::atomic<bool> loris_ready{false};
  threads.emplace_back([&] {
    std::vector<HttpClient> loris;
    while (running()) {
      // All of them at first, then at most a few replacements per tick.
      const std::size_t limit = loris_ready ? 4 : kSlowloris;
      for (std::size_t opened = 0; loris.size() < kSlowloris && opened < limit; ++opened) {
        try {
          loris.emplace_back(server.port(), 5s);
          loris.back().send_raw("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Slow: ");
        } catch (const std::exception&) {
          break;
        }
      }
      loris_ready = true;
      for (auto it = loris.begin(); it != loris.end();) {
        if (it->readable() || !it->send_raw("a")) {
          ++loris_cut;
          it = loris.erase(it);
        } else {
          ++it;
        }
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  while (!loris_ready) std::this_thread::sleep_for(10ms);
  // Flood: connections opened as fast as possible, dropped at once or kept silent for a
  // while. Dropped with a reset, not a FIN: a FIN leaves this side's port in TIME_WAIT,
  // and at tens of thousands a second the flood would use up the loopback's ephemeral
  // ports and make the normal clients' connects fail (the harness, not the server).
  for (int f = 0; f < kFlooders; ++f)
    threads.emplace_back([&] {
      std::vector<HttpClient> silent;
      for (long n = 0; running(); ++n) {
        try {
          HttpClient c(server.port(), 5s);
          ++flood_connections;
          if (n % 2 == 0) {
            c.reset();
          } else {
            silent.push_back(std::move(c));
          }
        } catch (const std::exception&) {
          // Refused while the backlog is full: the flood goes on.
        }
        if (silent.size() >= kSilentPerFlooder) {
          for (auto& c : silent) c.reset();
          silent.clear();
        }
      }
    });
  // Normal clients: a request on a fresh connection, again and again.
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  for (int c = 0; c < kNormalClients; ++c)
    threads.emplace_back([&] {
      while (running()) {
        std::string failure;
        try {
          HttpClient client(server.port(), 10s);
          const HttpResponse r = client.request("GET", "/healthz");
          if (r.status == 200) {
            ++served;
            continue;
          }
          // The flood may fill the connection cap for a moment: the documented answer past
          // it is 503 and close (docs/DESIGN.md), an answer all the same.
          if (r.status == 503 && r.body.find("service_unavailable") != std::string::npos) {
            ++over_cap;
            continue;
          }
          failure = std::to_string(r.status) + " " + r.body;
        } catch (const std::exception& e) {
          failure = e.what();
        }
        ++failed;
        std::lock_guard lock(failures_mutex);
        failures.push_back(failure);
      }
    });
  for (auto& t : threads) t.join();

  std::printf("chaos http: %ld normal requests served, %ld answered 503 at the connection cap, %ld failed; %ld "
              "slowloris connections cut; %ld flood connections\n",
              served.load(), over_cap.load(), failed.load(), loris_cut.load(), flood_connections.load());
  EXPECT_EQ(failed.load(), 0) << "first: " << (failures.empty() ? "" : failures.front());
  EXPECT_GT(served.load(), over_cap.load()) << "the normal clients were mostly turned away";
  EXPECT_GT(loris_cut.load(), 0) << "the server never cut a slowloris connection";
  HttpClient after(server.port());
  EXPECT_EQ(after.request("GET", "/healthz").status, 200);
  // Every hostile connection is gone once its deadline passed: no descriptor leaked.
  EXPECT_TRUE(eventually([&] { return server.open_fds() <= fds_before + 1; }, 30s))
      << server.open_fds() << " descriptors open, " << fds_before << " before";
  EXPECT_EQ(server.terminate(), 0);
}

}  // namespace
}  // namespace storeapi::testing
