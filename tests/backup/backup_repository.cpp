#include "backup/backup_repository.hpp"

#include <pqxx/pqxx>
#include <simdjson.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

// A shell word: the recovery's arguments hold spaces and quotes (a time, a URL).
std::string shell_word(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

BackupRepository::BackupRepository(ThrowawayCluster& cluster) : cluster_(cluster) {
  char dir_template[] = "/tmp/storeapi-test-pgbackrest-XXXXXX";
  if (!::mkdtemp(dir_template)) throw std::runtime_error("mkdtemp failed");
  dir_ = dir_template;
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("postgres");
    if (!pw || ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("cannot hand " + dir_ + " to the postgres user");
  }
  config_ = dir_ + "/pgbackrest.conf";
  {
    // dist/pgbackrest/pgbackrest.conf's choices, with paths of the test's own and no
    // cipher (nothing here outlives the test).
    std::ofstream conf(config_);
    conf << "[global]\n"
         << "repo1-path=" << dir_ << "/repo\nlog-path=" << dir_ << "/log\nlock-path=" << dir_ << "/lock\n"
         << "spool-path=" << dir_ << "/spool\n"
         << "archive-async=y\nstart-fast=y\ncompress-type=zst\nrepo1-retention-full=2\nprocess-max=2\n"
         << "log-level-console=warn\nlog-level-file=off\n"
         << "[" << kStanza << "]\n"
         << "pg1-path=" << cluster_.data_dir() << "\npg1-port=" << cluster_.port() << "\n"
         << "pg1-socket-path=" << cluster_.socket_dir() << "\n";
  }
  ::chmod(config_.c_str(), 0644);
  {
    pqxx::connection conn(cluster_.url());
    pqxx::nontransaction work(conn);
    work.exec0("alter system set archive_mode = on");
    // Appended, not quote()d: pqxx's quote() trips g++ 12's -Wrestrict.
    std::string command = "alter system set archive_command = '";
    command += work.esc("pgbackrest --config=" + config_ + " --stanza=" + kStanza + " archive-push %p");
    command += "'";
    work.exec0(command);
  }
  cluster_.stop();  // archive_mode takes a restart
  cluster_.start();
  pgbackrest({"stanza-create"});
  pgbackrest({"check"});
}

BackupRepository::~BackupRepository() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void BackupRepository::pgbackrest(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/pgbackrest", "--config=" + config_, std::string("--stanza=") + kStanza};
  argv.insert(argv.end(), args.begin(), args.end());
  if (run_as_cluster_owner(argv, dir_ + "/commands.log") != 0)
    throw std::runtime_error("pgbackrest " + args.front() + " failed:\n" + log());
}

std::string BackupRepository::log() const { return read_file(dir_ + "/commands.log"); }

void BackupRepository::backup(const std::string& type) { pgbackrest({"--type=" + type, "backup"}); }

std::int64_t BackupRepository::newest_backup_stop() {
  const std::string info = dir_ + "/info.json";
  const std::string command = "/usr/bin/pgbackrest --config=" + shell_word(config_) + " --stanza=" + kStanza +
                              " --output=json info >" + shell_word(info);
  if (run_as_cluster_owner({"/bin/sh", "-c", command}, dir_ + "/commands.log") != 0)
    throw std::runtime_error("pgbackrest info failed:\n" + log());
  simdjson::dom::parser parser;
  const std::string text = read_file(info);
  auto backups = parser.parse(text).at(0)["backup"].get_array();
  if (backups.error() || backups.value().size() == 0) throw std::runtime_error("no backup in the repository: " + text);
  std::int64_t stop = 0;
  for (auto backup : backups.value()) stop = std::max<std::int64_t>(stop, backup["timestamp"]["stop"].get_int64());
  return stop;
}

void BackupRepository::archive_current_wal() {
  pqxx::connection conn(cluster_.url());
  pqxx::nontransaction work(conn);
  // pg_walfile_name of the switch's end names the segment just closed.
  const auto segment = work.exec1("select pg_walfile_name(pg_switch_wal())")[0].as<std::string>();
  if (!eventually(
          [&] {
            return work.exec_params1("select coalesce(last_archived_wal >= $1, false) from pg_stat_archiver", segment)[0]
                .as<bool>();
          },
          std::chrono::seconds(60)))
    throw std::runtime_error("WAL segment " + segment + " was not archived:\n" + log());
}

BackupRepository::Recovery BackupRepository::recover(const std::string& target, const std::string& database,
                                                     const std::string& history_from) {
  Recovery recovery;
  const std::string report = dir_ + "/recovery-" + std::to_string(::time(nullptr)) + ".json";
  recovery.cluster = std::make_unique<ThrowawayCluster>(
      ThrowawayCluster::RestoredBy{[&](const std::string& data_dir, std::uint16_t port, const std::string& socket_dir) {
        std::string command = std::string(STOREAPI_RECOVER_SCRIPT) + " --config " + shell_word(config_) + " --stanza " +
                              kStanza + " --pg-path " + shell_word(data_dir) + " --port " + std::to_string(port) +
                              " --socket-dir " + shell_word(socket_dir) + " --scratch --timeout 120 --database " +
                              shell_word(database);
        command += target.empty() ? " --to-end" : " --target " + shell_word(target);
        if (!history_from.empty()) command += " --history-from " + shell_word(history_from);
        if (run_as_cluster_owner({"/bin/sh", "-c", command + " >" + shell_word(report)}, dir_ + "/commands.log") != 0)
          throw std::runtime_error("storeapi-recover failed:\n" + log());
      }});
  recovery.report = read_file(report);
  return recovery;
}

}  // namespace storeapi::testing
