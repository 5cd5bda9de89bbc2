#include "support/auth_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

std::string server_path() {
  const char* dir = std::getenv("STOREAPI_BUILD_DIR");
  if (!dir || !*dir) throw std::runtime_error("STOREAPI_BUILD_DIR is not set: run the tests through tools/test");
  return std::string(dir) + "/storeapi";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The port of "storeapi: listening on 127.0.0.1:PORT with N threads", or 0.
std::uint16_t listening_port(const std::string& log) {
  constexpr std::string_view marker = "listening on 127.0.0.1:";
  std::size_t at = log.find(marker);
  if (at == std::string::npos) return 0;
  const char* first = log.data() + at + marker.size();
  std::uint16_t port = 0;
  std::from_chars(first, log.data() + log.size(), port);
  return port;
}

}  // namespace

AuthServer::AuthServer(AuthServerOptions options) : options_(std::move(options)) {
  std::string path = server_path();
  char log_template[] = "/tmp/storeapi-test-server-XXXXXX";
  int log_fd = ::mkostemp(log_template, O_CLOEXEC);
  if (log_fd < 0) throw std::runtime_error("mkstemp failed");
  log_path_ = log_template;

  std::vector<std::pair<std::string, std::string>> env{
      {"STOREAPI_DATABASE_URL", options_.database_url},
      {"STOREAPI_LISTEN", "127.0.0.1:0"},
      {"STOREAPI_THREADS", std::to_string(options_.threads)},
      {"STOREAPI_DB_CONNS_PER_THREAD", std::to_string(options_.db_conns_per_thread)},
      {"STOREAPI_ACCESS_LOG", "off"},
  };
  env.insert(env.end(), options_.env.begin(), options_.env.end());
  // The child gets this process's environment with those set; built before fork(), since
  // only async-signal-safe calls belong between fork() and exec().
  std::vector<std::string> entries;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& kv : env) overridden = overridden || kv.first == name;
    if (!overridden) entries.emplace_back(entry);
  }
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  char* argv[] = {path.data(), nullptr};
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);

  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(log_fd, STDERR_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    ::execve(path.c_str(), argv, envp.data());
    ::_exit(127);
  }
  ::close(log_fd);
  ::close(null_fd);

  bool exited = false;
  bool up = eventually([&] {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited = true;
      return true;
    }
    port_ = listening_port(log());
    return port_ != 0;
  });
  if (!up || exited) {
    std::string why = log();
    if (!exited) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
    throw std::runtime_error("storeapi did not start listening; its stderr:\n" + why);
  }
}

AuthServer::~AuthServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    // DESIGN: SIGTERM exits within 10 s; past a generous margin, force it.
    bool gone = eventually([&] { return ::waitpid(pid_, nullptr, WNOHANG) == pid_; }, std::chrono::seconds(20));
    if (!gone) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::error_code ignored;
  std::filesystem::remove(log_path_, ignored);
}

std::string AuthServer::log() const { return read_file(log_path_); }

std::size_t AuthServer::open_fds() const {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid_) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

}  // namespace storeapi::testing
