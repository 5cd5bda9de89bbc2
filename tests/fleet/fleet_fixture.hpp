#pragma once
// Two storeapi nodes on one database and one Redis (fleet mode; an ACL user signs in, TLS
// when asked), each a process of its
// own with two cores, as several API nodes behind a load balancer run; the auth fixture's
// helpers (admin tool, keys, error checks) work on node A (server()).
#include <memory>
#include <string>

#include "auth/auth_fixture.hpp"
#include "support/redis_process.hpp"
#include "support/test_certificates.hpp"

namespace storeapi::testing {

class FleetTest : public AuthTest {
 protected:
  // The database on the shared test cluster, or on the cluster of `cluster_url`; Redis
  // over TLS (rediss://, verified against the test's CA) when `redis_tls`.
  explicit FleetTest(const std::string& cluster_url = "", bool redis_tls = false)
      : AuthTest(cluster_url),
        certificates_(redis_tls ? std::make_unique<TestCertificates>() : nullptr),
        redis_(RedisOptions{.tls = certificates_.get()}) {}
  void SetUp() override;

  // The settings of a fleet node: this test's Redis, no STOREAPI_SECRET (the fleet's), a
  // drain period longer than the load balancer's health checks take to notice (2 × 100 ms),
  // and the standbys of `replica_urls_` when the test has some.
  std::map<std::string, std::string> fleet_settings() const {
    std::map<std::string, std::string> settings{{"STOREAPI_REDIS_URL", redis_.url()}, {"STOREAPI_DRAIN_MS", "1000"}};
    if (certificates_) settings["STOREAPI_REDIS_CA_FILE"] = certificates_->ca_file();
    if (!replica_urls_.empty()) settings["STOREAPI_REPLICA_URLS"] = replica_urls_;
    return settings;
  }
  // Another node of the fleet (on `port`, else a free one), returned once every core is
  // ready; `settings` override the fleet's.
  std::unique_ptr<ServerProcess> start_node(std::uint16_t port = 0, const std::map<std::string, std::string>& settings = {});
  ServerProcess& node_a() { return server(); }
  ServerProcess& node_b() { return *node_b_; }
  HttpResponse get_on(ServerProcess& node, const std::string& target, const Headers& headers = {}) {
    return HttpClient(node.port(), kReplyTimeout).get(target, headers);
  }

  std::unique_ptr<TestCertificates> certificates_;  // before redis_, which uses them
  RedisProcess redis_;
  std::string replica_urls_;
  std::unique_ptr<ServerProcess> node_b_;
};

// How many times `text` occurs in `haystack`.
std::size_t occurrences(const std::string& haystack, const std::string& text);
// The lines saying Redis is back ("storeapi: redis HOST:PORT is back"); the outage's own
// line ends "... until it is back" and is not one of them.
std::size_t redis_back_lines(const std::string& stderr_text);

}  // namespace storeapi::testing
