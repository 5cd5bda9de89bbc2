#pragma once
// A PostgreSQL 15 cluster of the test's own, in a temporary directory on a free loopback
// port, for tests that stop and start the database under a running server: stopping the
// shared cluster of tools/test would fail every other test running beside them. As root
// it runs as the `postgres` user (like tools/dev-db); trust authentication, fsync off,
// wal_level = logical; with the runtime role `storeapi` (docs/DEPLOY.md "Database roles").
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace storeapi::testing {

class ThrowawayCluster {
 public:
  // initdb and start; throws (with the server log) when that fails.
  ThrowawayCluster();
  // A streaming hot standby of `primary` (pg_basebackup -R, its own free port), started.
  struct StandbyOf {
    const ThrowawayCluster& primary;
  };
  explicit ThrowawayCluster(StandbyOf standby);
  // The same on a host of a NetLab (support/net_lab.hpp): listening on its address (and
  // trusting the lab's /24), every PostgreSQL program run in its network namespace.
  struct OnHost {
    std::string netns;
    std::string address;
  };
  explicit ThrowawayCluster(OnHost host);
  // A cluster that `restore` makes in `data_dir` (absent until then) and starts, listening
  // on `port` with its socket in `socket_dir` (a point-in-time recovery,
  // tests/backup/backup_repository.hpp); stopped and removed like the others.
  struct RestoredBy {
    std::function<void(const std::string& data_dir, std::uint16_t port, const std::string& socket_dir)> restore;
  };
  explicit ThrowawayCluster(const RestoredBy& restored);
  ThrowawayCluster(StandbyOf standby, OnHost host);
  // Stops the cluster and removes its directory.
  ~ThrowawayCluster();
  ThrowawayCluster(const ThrowawayCluster&) = delete;
  ThrowawayCluster& operator=(const ThrowawayCluster&) = delete;

  // pg_ctl stop -m fast: sessions are terminated, returns once the server is down.
  void stop();
  // pg_ctl start on the same port; returns once it accepts connections.
  void start();
  bool running() const noexcept { return running_; }
  // SIGSTOP / SIGCONT to every process of the cluster: a database that accepts TCP
  // connections but never answers, like one behind a network partition.
  void freeze();
  void thaw();

  // A libpq URL of the `postgres` database (TestDatabase creates its own beside it), or
  // of `database`.
  std::string url(const std::string& database = "postgres") const;
  std::uint16_t port() const noexcept { return port_; }
  // What the server has logged so far.
  std::string server_log() const;
  // The data directory, and the directory of its Unix socket (and of the cluster's logs).
  std::string data_dir() const { return dir_ + "/data"; }
  const std::string& socket_dir() const noexcept { return dir_; }
  // pg_ctl stop -m immediate: every process quits at once, as in a crash; start() brings
  // it back (crash recovery).
  void kill();
  // pg_ctl promote of a standby; returns once it is a primary accepting writes.
  void promote();

 private:
  // A fresh directory (owned by `postgres` when root) and a free port.
  void make_directory();
  // Appends the settings of a server of this test: loopback only on its own port and
  // socket directory, durability off, few resources.
  void configure();
  void pg_ctl(const std::string& action);

  // Runs a PostgreSQL program in the cluster's namespace, as `postgres` when root.
  int run_here(std::vector<std::string> argv, const std::string& log) const;
  void initdb();
  void base_backup(const ThrowawayCluster& primary);

  std::string dir_;
  OnHost host_{"", "127.0.0.1"};
  std::uint16_t port_ = 0;
  bool running_ = false;

  friend std::string multi_host_url(const ThrowawayCluster&, const ThrowawayCluster&, const std::string&);
};

// The superuser of the test clusters (theirs and tools/test's): `postgres` as root, else
// the caller. What the store move tests give as the mover (STOREAPI_MOVER_USER).
std::string cluster_superuser();

// Runs a PostgreSQL program (or pgBackRest) as the user that owns the clusters (`postgres`
// when root), its output appended to `log`; its exit status.
int run_as_cluster_owner(std::vector<std::string> argv, const std::string& log);
// The whole file ("" when it cannot be read): a log, for an error message.
std::string read_file(const std::string& path);

// A libpq URL naming both clusters, as an operator's STOREAPI_DATABASE_URL names a primary
// and its standby: `postgresql://user@127.0.0.1:P1,127.0.0.1:P2/postgres?target_session_attrs=…`.
std::string multi_host_url(const ThrowawayCluster& first, const ThrowawayCluster& second,
                           const std::string& target_session_attrs = "read-write");

}  // namespace storeapi::testing
