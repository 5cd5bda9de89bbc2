#pragma once
// A stand-in for Patroni's REST API as dist/patroni/haproxy.cfg checks it: GET /primary
// answered 200 when the cluster is a primary accepting writes (pg_is_in_recovery() is
// false) and 503 otherwise, as Patroni answers on a node that does not hold the leader
// lock. It listens on a NetLab host (support/net_lab.hpp), inside that host's network
// namespace, and asks the cluster from there: the host cut off takes its check with it,
// as a vanished machine takes its Patroni.
#include <pqxx/pqxx>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "support/net_lab.hpp"

namespace storeapi::testing {

class PrimaryCheck {
 public:
  // Listens on host.address:`port`; returns once it does (throws when it cannot).
  PrimaryCheck(const NetLab::Host& host, std::uint16_t port, std::string cluster_url);
  ~PrimaryCheck();
  PrimaryCheck(const PrimaryCheck&) = delete;
  PrimaryCheck& operator=(const PrimaryCheck&) = delete;

 private:
  void serve(int listener);
  bool is_primary();

  std::string cluster_url_;
  std::unique_ptr<pqxx::connection> conn_;  // the serving thread's
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace storeapi::testing
