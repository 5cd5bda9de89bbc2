#include "support/throwaway_cluster.hpp"

#include "support/free_port.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace storeapi::testing {
namespace {

const std::string kBin = "/usr/lib/postgresql/15/bin/";

bool as_root() { return ::geteuid() == 0; }

std::string db_user() {
  if (as_root()) return "postgres";
  const passwd* pw = ::getpwuid(::geteuid());
  return pw ? pw->pw_name : "postgres";
}

// Runs a PostgreSQL program (as `postgres` when root; in `netns` when given), its output
// appended to `log`.
int run(std::vector<std::string> argv, const std::string& log, const std::string& netns = "") {
  if (as_root()) argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "postgres", "--"});
  if (!netns.empty()) argv.insert(argv.begin(), {"/usr/sbin/ip", "netns", "exec", netns});
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The postmaster (first line of postmaster.pid) and its children.
std::vector<pid_t> cluster_processes(const std::string& data_dir) {
  std::vector<pid_t> pids;
  std::ifstream pidfile(data_dir + "/postmaster.pid");
  pid_t postmaster = 0;
  if (!(pidfile >> postmaster)) return pids;
  pids.push_back(postmaster);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so parse after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    char state = 0;
    pid_t parent = 0;
    if (rest >> state >> parent && parent == postmaster) pids.push_back(std::stoi(entry.path().filename()));
  }
  return pids;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_as_cluster_owner(std::vector<std::string> argv, const std::string& log) { return run(std::move(argv), log); }

void ThrowawayCluster::make_directory() {
  char dir_template[] = "/tmp/storeapi-test-pg-XXXXXX";
  if (!::mkdtemp(dir_template)) throw std::runtime_error("mkdtemp failed");
  dir_ = dir_template;
  if (as_root()) {
    const passwd* pw = ::getpwnam("postgres");
    if (!pw || ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("cannot hand " + dir_ + " to the postgres user");
  }
  port_ = free_port();
}

void ThrowawayCluster::configure() {
  // Appended last, so they win over what a base backup copied from its primary.
  std::ofstream conf(dir_ + "/data/postgresql.conf", std::ios::app);
  conf << "listen_addresses = '" << host_.address << "'\n"
       << "port = " << port_ << "\n"
       << "unix_socket_directories = '" << dir_ << "'\n"
       << "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
       << "max_connections = 100\nshared_buffers = 32MB\n"
       // Logical WAL, so a cluster can be the source of a store move (admin/move/store_move.hpp).
       << "wal_level = logical\n"
       // As a move's target, a replication origin for its subscription and one for each
       // table whose copy ended before the subscription caught up with it (up to every
       // table of a store), each taking one of max_replication_slots' origin slots
       // (docs/DEPLOY.md, "Moving stores between pods").
       << "max_replication_slots = 20\n";
  if (!host_.netns.empty()) {
    // The hub (servers, the test) and the other hosts of the lab connect over its bridge.
    std::ofstream hba(dir_ + "/data/pg_hba.conf", std::ios::app);
    hba << "host all all 10.233.0.0/24 trust\nhost replication all 10.233.0.0/24 trust\n";
  }
}

int ThrowawayCluster::run_here(std::vector<std::string> argv, const std::string& log) const {
  return run(std::move(argv), log, host_.netns);
}

void ThrowawayCluster::initdb() {
  make_directory();
  std::string log = dir_ + "/commands.log";
  if (run_here({kBin + "initdb", "-D", dir_ + "/data", "-U", db_user(), "--auth=trust", "-E", "UTF8",
                "--locale=C.UTF-8", "--no-sync"},
               log) != 0)
    throw std::runtime_error("initdb failed:\n" + read_file(log));
  configure();
  start();
  // The runtime role (docs/DEPLOY.md "Database roles"), as tools/dev-db makes it: the API
  // servers of the tests connect as it (support/runtime_role.hpp). A standby has it from here.
  // On its host: a cluster of a network namespace listens on the namespace's address only.
  if (run_here({kBin + "psql", "-h", host_.address, "-p", std::to_string(port_), "-U", db_user(), "-d", "postgres",
                "-v", "ON_ERROR_STOP=1", "-qc", "create role storeapi login"},
               log) != 0)
    throw std::runtime_error("creating the runtime role failed:\n" + read_file(log));
}

void ThrowawayCluster::base_backup(const ThrowawayCluster& primary) {
  make_directory();
  std::string log = dir_ + "/commands.log";
  // -R writes primary_conninfo and standby.signal: it starts as a streaming hot standby.
  if (run_here({kBin + "pg_basebackup", "-D", dir_ + "/data", "-h", primary.host_.address, "-p",
                std::to_string(primary.port_), "-U", db_user(), "-R", "-X", "stream", "--no-sync", "-c", "fast"},
               log) != 0)
    throw std::runtime_error("pg_basebackup failed:\n" + read_file(log));
  configure();
  start();
}

ThrowawayCluster::ThrowawayCluster() { initdb(); }

ThrowawayCluster::ThrowawayCluster(StandbyOf standby) { base_backup(standby.primary); }

ThrowawayCluster::ThrowawayCluster(OnHost host) : host_(std::move(host)) { initdb(); }

ThrowawayCluster::ThrowawayCluster(StandbyOf standby, OnHost host) : host_(std::move(host)) {
  base_backup(standby.primary);
}

ThrowawayCluster::ThrowawayCluster(const RestoredBy& restored) {
  make_directory();
  try {
    restored.restore(data_dir(), port_, dir_);
  } catch (...) {
    // A restore that failed after starting the server leaves it running: stopped first.
    if (std::filesystem::exists(data_dir() + "/postmaster.pid"))
      run_as_cluster_owner({kBin + "pg_ctl", "-D", data_dir(), "-m", "immediate", "stop"}, "/dev/null");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    throw;
  }
  running_ = true;
}

ThrowawayCluster::~ThrowawayCluster() {
  try {
    if (running_) stop();
  } catch (const std::exception&) {
    // Best effort: the directory goes anyway.
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void ThrowawayCluster::pg_ctl(const std::string& action) {
  std::string log = dir_ + "/commands.log";
  std::vector<std::string> argv{kBin + "pg_ctl", "-D", dir_ + "/data", "-w", "-t", "60"};
  if (action == "start") argv.insert(argv.end(), {"-l", dir_ + "/server.log"});
  if (action == "stop") argv.insert(argv.end(), {"-m", "fast"});
  // Immediate shutdown: every process quits at once, nothing is flushed, the next start
  // recovers from the WAL — a crash, without leaving a stale postmaster.pid behind.
  if (action == "kill") argv.insert(argv.end(), {"-m", "immediate"});
  // -w: returns once the promoted server accepts writes.
  argv.push_back(action == "kill" ? "stop" : action);
  if (run_here(argv, log) != 0)
    throw std::runtime_error("pg_ctl " + action + " failed:\n" + read_file(log) + read_file(dir_ + "/server.log"));
}

void ThrowawayCluster::start() {
  pg_ctl("start");
  running_ = true;
}

void ThrowawayCluster::stop() {
  pg_ctl("stop");
  running_ = false;
}

void ThrowawayCluster::freeze() {
  for (pid_t pid : cluster_processes(dir_ + "/data")) ::kill(pid, SIGSTOP);
}

void ThrowawayCluster::thaw() {
  for (pid_t pid : cluster_processes(dir_ + "/data")) ::kill(pid, SIGCONT);
}

std::string cluster_superuser() { return db_user(); }

std::string ThrowawayCluster::server_log() const { return read_file(dir_ + "/server.log"); }

std::string ThrowawayCluster::url(const std::string& database) const {
  return "postgresql://" + db_user() + "@" + host_.address + ":" + std::to_string(port_) + "/" + database;
}

void ThrowawayCluster::kill() {
  pg_ctl("kill");
  running_ = false;
}

void ThrowawayCluster::promote() { pg_ctl("promote"); }

std::string multi_host_url(const ThrowawayCluster& first, const ThrowawayCluster& second,
                           const std::string& target_session_attrs) {
  return "postgresql://" + db_user() + "@" + first.host_.address + ":" + std::to_string(first.port_) + "," +
         second.host_.address + ":" + std::to_string(second.port_) + "/postgres?target_session_attrs=" +
         target_session_attrs;
}

}  // namespace storeapi::testing
