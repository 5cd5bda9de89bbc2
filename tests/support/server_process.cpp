#include "support/server_process.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "support/poll.hpp"

extern char** environ;

namespace storeapi::testing {
namespace {

// An anonymous in-memory file for the child to write to.
int capture_file(const char* name) {
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  return fd;
}

// Everything written to `fd` so far (read by offset: the child owns the file position).
std::string read_all(int fd) {
  std::string text;
  char chunk[64 * 1024];
  for (ssize_t n; (n = ::pread(fd, chunk, sizeof chunk, static_cast<off_t>(text.size()))) > 0;)
    text.append(chunk, static_cast<std::size_t>(n));
  return text;
}

std::filesystem::path build_dir() {
  const char* dir = std::getenv("STOREAPI_BUILD_DIR");
  if (!dir || !*dir) throw std::runtime_error("STOREAPI_BUILD_DIR is not set (run the tests through tools/test)");
  return dir;
}

// The inherited environment with `overrides` replacing or adding variables (see
// ProcessOptions::inherit_settings).
std::vector<std::string> child_environment(std::map<std::string, std::string> overrides, bool inherit_settings) {
  if (inherit_settings) {
    if (!overrides.count("STOREAPI_LISTEN")) overrides["STOREAPI_LISTEN"] = "127.0.0.1:0";
    // Never the fixed default port: tests run side by side.
    if (!overrides.count("STOREAPI_METRICS_LISTEN")) overrides["STOREAPI_METRICS_LISTEN"] = "127.0.0.1:0";
    const char* db = std::getenv("STOREAPI_TEST_DATABASE_URL");
    if (db && *db && !overrides.count("STOREAPI_DATABASE_URL")) overrides["STOREAPI_DATABASE_URL"] = db;
  }
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string name(entry.substr(0, entry.find('=')));
    if (!inherit_settings && name.starts_with("STOREAPI_")) continue;
    if (!overrides.count(name)) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ServerProcess::ServerProcess(ProcessOptions options) {
  try {
    spawn(options);
    if (options.wait_for_listening) wait_until_listening(options.start_timeout);
  } catch (...) {
    shut_down();
    throw;
  }
}

ServerProcess::~ServerProcess() { shut_down(); }

void ServerProcess::spawn(const ProcessOptions& options) {
  std::string path = (build_dir() / options.binary).string();
  std::vector<std::string> argv_strings{path};
  argv_strings.insert(argv_strings.end(), options.args.begin(), options.args.end());
  std::vector<std::string> env_strings = child_environment(options.env, options.inherit_settings);
  // Everything the child needs is prepared here: after fork() it may only make syscalls.
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  stdout_fd_ = capture_file("storeapi-stdout");
  stderr_fd_ = capture_file("storeapi-stderr");
  pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the test already died
    ::dup2(stdout_fd_, STDOUT_FILENO);        // dup2 clears close-on-exec on the copies
    ::dup2(stderr_fd_, STDERR_FILENO);
    if (options.max_open_files) {
      rlimit limit{*options.max_open_files, *options.max_open_files};
      ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
}

void ServerProcess::shut_down() noexcept {
  if (pid_ > 0 && running()) {
    ::kill(pid_, SIGKILL);
    wait_exit(std::chrono::milliseconds(30'000));
  }
  for (int* fd : {&stdout_fd_, &stderr_fd_})
    if (*fd >= 0) ::close(std::exchange(*fd, -1));
}

namespace {

// The port of "<marker>HOST:PORT" on a complete line of `text`; 0 if there is none yet.
std::uint16_t reported_port(const std::string& text, std::string_view marker) {
  std::size_t at = text.find(marker);
  if (at == std::string::npos) return 0;
  std::size_t line_end = text.find('\n', at);
  if (line_end == std::string::npos) return 0;
  std::size_t start = at + marker.size();
  std::string address = text.substr(start, std::min(text.find(' ', start), line_end) - start);
  return static_cast<std::uint16_t>(std::stoul(address.substr(address.rfind(':') + 1)));
}

}  // namespace

std::uint16_t ServerProcess::metrics_port() const { return reported_port(stderr_text(), "metrics on "); }

void ServerProcess::wait_until_listening(std::chrono::milliseconds timeout) {
  bool listening = eventually(
      [&] {
        port_ = reported_port(stderr_text(), "listening on ");
        return port_ != 0 || !running();  // stop waiting on an early exit
      },
      timeout);
  if (port_ == 0) {
    std::string why = listening ? "exited" : "did not report listening in time";
    throw std::runtime_error("server " + why + "; stderr:\n" + stderr_text());
  }
}

void ServerProcess::signal(int signo) {
  if (running()) ::kill(pid_, signo);
}

void ServerProcess::kill() {
  signal(SIGKILL);
  wait_exit(std::chrono::milliseconds(30'000));
}

int ServerProcess::terminate(std::chrono::milliseconds timeout) {
  signal(SIGTERM);
  std::optional<int> status = wait_exit(timeout);
  if (!status) throw std::runtime_error("server did not exit after SIGTERM; stderr:\n" + stderr_text());
  return *status;
}

std::optional<int> ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  eventually([&] { return !running(); }, timeout);
  return exit_status_;
}

bool ServerProcess::running() {
  if (exit_status_) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = decode_status(status);
  return !exit_status_;
}

std::string ServerProcess::stdout_text() const { return read_all(stdout_fd_); }
std::string ServerProcess::stderr_text() const { return read_all(stderr_fd_); }

std::size_t ServerProcess::open_fds() const {
  std::size_t count = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/proc/" + std::to_string(pid_) + "/fd", error), end;
       !error && it != end; it.increment(error))
    ++count;
  return count;
}

}  // namespace storeapi::testing
