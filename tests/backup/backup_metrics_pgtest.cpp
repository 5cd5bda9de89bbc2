// The backups watched (dist/pgbackrest/storeapi-backup-metrics; the alert rules on these
// metrics are unit-tested by promtool, meson test promtool-backup-rules): a cluster of the
// test's own archiving to a pgBackRest repository, the script run as the deployment's
// timer runs it, its textfile read back.
//   - before any backup the stanza is reported not ok and no age is exported; a full
//     backup exports its completion time and an age, which grows until the next backup (a
//     differential) brings it down and exports that type's time too;
//   - archived segments are counted; with archive_command broken the failures rise and the
//     last failure is newer than the last success, what StoreapiWalArchivingFailing fires on.
// Seen failing (tools/mutants): with the age computed from the oldest backup instead of
// the newest, the differential does not bring it down; with pg_stat_archiver's
// failed_count not read, the failures stay 0.
#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "backup/backup_repository.hpp"
#include "support/poll.hpp"
#include "support/throwaway_cluster.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class BackupMetrics {
 public:
  BackupMetrics(const ThrowawayCluster& cluster, const BackupRepository& repository)
      : cluster_(cluster), repository_(repository), output_(cluster.socket_dir() + "/storeapi-backup-test.prom") {}

  // Runs the script once and returns its metrics by series ("name{labels}" -> value).
  std::map<std::string, double> scrape() {
    const std::string command = std::string(STOREAPI_BACKUP_METRICS_SCRIPT) + " --stanza " + BackupRepository::kStanza +
                                " --config " + repository_.config_path() + " --output " + output_ +
                                " --pg 'host=" + cluster_.socket_dir() + " port=" + std::to_string(cluster_.port()) +
                                " dbname=postgres'";
    if (run_as_cluster_owner({"/bin/sh", "-c", command}, cluster_.socket_dir() + "/metrics.log") != 0)
      throw std::runtime_error("storeapi-backup-metrics failed");
    std::map<std::string, double> series;
    std::ifstream in(output_);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const auto space = line.rfind(' ');
      series[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return series;
  }

 private:
  const ThrowawayCluster& cluster_;
  const BackupRepository& repository_;
  std::string output_;
};

const std::string kLabel = R"({stanza="test"})";

TEST(BackupMetrics, AgeMovesWithBackupsAndArchiveFailuresRise) {
  ThrowawayCluster cluster;
  BackupRepository repository(cluster);
  BackupMetrics metrics(cluster, repository);

  auto none = metrics.scrape();
  EXPECT_EQ(none.at("storeapi_backup_stanza_ok" + kLabel), 0) << "no backup yet";
  EXPECT_FALSE(none.count("storeapi_backup_age_seconds" + kLabel));
  EXPECT_EQ(none.at("storeapi_wal_archiver_up" + kLabel), 1);

  repository.backup("full");
  auto full = metrics.scrape();
  EXPECT_EQ(full.at("storeapi_backup_stanza_ok" + kLabel), 1);
  const double full_done = full.at(R"(storeapi_backup_last_completed_timestamp_seconds{stanza="test",type="full"})");
  EXPECT_GT(full_done, 0);
  EXPECT_GT(full.at("storeapi_backup_last_size_bytes" + kLabel), 0);
  EXPECT_GE(full.at("storeapi_wal_archived_total" + kLabel), 1) << "the backup's own segments";
  // The age grows while no backup is taken (whole seconds: wait for the next one).
  double older = 0;
  ASSERT_TRUE(eventually(
      [&] {
        older = metrics.scrape().at("storeapi_backup_age_seconds" + kLabel);
        return older >= full.at("storeapi_backup_age_seconds" + kLabel) + 2;
      },
      30s, 500ms));

  repository.backup("diff");
  auto diff = metrics.scrape();
  EXPECT_LT(diff.at("storeapi_backup_age_seconds" + kLabel), older);
  EXPECT_GE(diff.at(R"(storeapi_backup_last_completed_timestamp_seconds{stanza="test",type="diff"})"), full_done);
  EXPECT_EQ(diff.at(R"(storeapi_backup_last_completed_timestamp_seconds{stanza="test",type="full"})"), full_done);

  // archive_command broken: each segment's archiving fails, again and again.
  {
    pqxx::connection conn(cluster.url());
    pqxx::nontransaction work(conn);
    work.exec0("alter system set archive_command = '/bin/false'");
    work.exec1("select pg_reload_conf()");
    work.exec0("create table archived_or_not (x int)");
    work.exec1("select pg_switch_wal()");
  }
  const double failed_before = diff.at("storeapi_wal_archive_failed_total" + kLabel);
  std::map<std::string, double> broken;
  EXPECT_TRUE(eventually(
      [&] {
        broken = metrics.scrape();
        return broken.at("storeapi_wal_archive_failed_total" + kLabel) > failed_before;
      },
      60s, 500ms));
  EXPECT_GT(broken.at("storeapi_wal_last_failed_timestamp_seconds" + kLabel),
            broken.at("storeapi_wal_last_archived_timestamp_seconds" + kLabel));
}

}  // namespace
}  // namespace storeapi::testing
