#pragma once
// A primary whose commits wait for its one streaming standby, as docs/DEPLOY.md asks
// ("No acknowledged write lost"): two ThrowawayClusters, on loopback or each on a host of
// a NetLab (support/net_lab.hpp).
#include <pqxx/pqxx>

#include <stdexcept>
#include <string>

#include "support/poll.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {

struct SynchronousPair {
  explicit SynchronousPair(ThrowawayCluster::OnHost first = {"", "127.0.0.1"},
                           ThrowawayCluster::OnHost second = {"", "127.0.0.1"})
      : primary(std::move(first)), standby(ThrowawayCluster::StandbyOf{primary}, std::move(second)) {
    // Set after the base backup, so the standby does not inherit it: promoted, it has no
    // standby of its own to wait for.
    auto value = [&](const std::string& sql) {
      pqxx::connection conn(primary.url());
      pqxx::nontransaction work(conn);
      auto field = work.exec1(sql)[0];
      return field.is_null() ? std::string() : std::string(field.c_str());
    };
    {
      pqxx::connection conn(primary.url());
      pqxx::nontransaction work(conn);
      work.exec0("alter system set synchronous_commit = on");
      work.exec0("alter system set synchronous_standby_names = '*'");
      work.exec1("select pg_reload_conf()");
    }
    if (!eventually([&] { return value("select count(*) from pg_stat_replication where sync_state = 'sync'") == "1"; }))
      throw std::runtime_error("the standby did not become synchronous");
  }
  ThrowawayCluster primary;
  ThrowawayCluster standby;
};

}  // namespace storeapi::testing
