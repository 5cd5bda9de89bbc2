#pragma once
// A storeapi binary from $STOREAPI_BUILD_DIR running as a child process, for integration
// tests (the server; the dispatcher, see dispatcher_process.hpp). Its stdout and stderr go to in-memory files (so a chatty server never blocks on
// a full pipe, and nothing is left on disk whatever happens) that the test can read at any
// time. The child is killed when the object goes away, and also if the test process dies
// (PR_SET_PDEATHSIG), so no server outlives its test.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::testing {

struct ProcessOptions {
  std::string binary = "storeapi";           // file name inside $STOREAPI_BUILD_DIR
  std::vector<std::string> args{};
  // Set on top of the inherited environment. Defaults added unless given here:
  // STOREAPI_LISTEN=127.0.0.1:0, and STOREAPI_DATABASE_URL=$STOREAPI_TEST_DATABASE_URL.
  std::map<std::string, std::string> env{};
  // False: no STOREAPI_* variable of the test's environment reaches the child and no
  // default is added, so `env` holds every setting it gets.
  bool inherit_settings = true;
  bool wait_for_listening = true;             // parse "listening on HOST:PORT" from stderr
  std::optional<unsigned long> max_open_files{};  // the child's RLIMIT_NOFILE
  std::chrono::milliseconds start_timeout{30'000};
};

class ServerProcess {
 public:
  // Starts the binary; with wait_for_listening, returns once it printed its address.
  // Throws std::runtime_error (with what it printed) if it exits or stays silent.
  explicit ServerProcess(ProcessOptions options = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }
  std::uint16_t port() const noexcept { return port_; }
  // The /metrics port it reported ("metrics on HOST:PORT"); 0 if it has not (yet).
  std::uint16_t metrics_port() const;

  void signal(int signo);
  // SIGKILL, as a crash would end it; returns once it is gone.
  void kill();
  // SIGTERM, then wait_exit(timeout). Returns the exit status (see wait_exit).
  int terminate(std::chrono::milliseconds timeout = std::chrono::milliseconds(30'000));
  // The exit code, or 128 + the signal that killed it; nullopt if still running after
  // `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  bool running();

  // Everything it printed so far.
  std::string stdout_text() const;
  std::string stderr_text() const;

  // How many file descriptors it has open now (to spot leaks).
  std::size_t open_fds() const;

  // Returns once it printed its address (port() is then known); throws as the
  // constructor does. For a process started without wait_for_listening.
  void wait_until_listening(std::chrono::milliseconds timeout = std::chrono::milliseconds(30'000));

 private:
  void spawn(const ProcessOptions& options);
  void shut_down() noexcept;

  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
  std::uint16_t port_ = 0;
};

}  // namespace storeapi::testing
