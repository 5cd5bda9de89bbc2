#pragma once
// A pgBackRest repository of a test's own (a temporary directory, stanza "test") for a
// ThrowawayCluster, set up as dist/pgbackrest/pgbackrest.conf sets up a deployment's:
// asynchronous archive-push of the cluster's WAL (archive_mode on: a restart), the stanza
// created. Backups, the archive's state, and point-in-time recovery by the shipped script
// (dist/pgbackrest/storeapi-recover) into a fresh cluster on a port of its own.
#include <cstdint>
#include <memory>
#include <string>

#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {

class BackupRepository {
 public:
  static constexpr const char* kStanza = "test";

  explicit BackupRepository(ThrowawayCluster& cluster);
  ~BackupRepository();
  BackupRepository(const BackupRepository&) = delete;
  BackupRepository& operator=(const BackupRepository&) = delete;

  // pgbackrest backup --type=full|diff|incr; throws with pgBackRest's output on failure.
  void backup(const std::string& type = "full");
  // The newest backup's stop time as pgBackRest records it (`info --output=json`): whole
  // seconds since the epoch. It restores to a time T only from a backup that stopped
  // before T by that record, so a T in the same second as the stop finds no backup.
  std::int64_t newest_backup_stop();
  // Closes the WAL segment being written and returns once the archive holds it: every
  // transaction committed so far can be recovered.
  void archive_current_wal();
  // pgBackRest's configuration file (for `--config=`), and what it printed so far.
  const std::string& config_path() const { return config_; }
  std::string log() const;

  struct Recovery {
    std::unique_ptr<ThrowawayCluster> cluster;  // promoted, serving
    std::string report;                         // storeapi-recover's JSON
  };
  // storeapi-recover --scratch into a new cluster: to `target` (PostgreSQL's
  // recovery_target_time; "" for the end of the archive). With `history_from` (a URL of
  // `database` holding what happened after the target) the report names the webhooks
  // delivered after it.
  Recovery recover(const std::string& target, const std::string& database = "postgres",
                   const std::string& history_from = "");

 private:
  // pgbackrest --config=… --stanza=test ARGS as the clusters' owner; throws on failure.
  void pgbackrest(const std::vector<std::string>& args);

  ThrowawayCluster& cluster_;
  std::string dir_;
  std::string config_;
};

}  // namespace storeapi::testing
