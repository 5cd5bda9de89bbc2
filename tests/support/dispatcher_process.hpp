#pragma once
// build/storeapi-dispatch as a child process, for the dispatcher tests and bench/load.
#include <chrono>
#include <map>
#include <string>

namespace storeapi::testing {

using Settings = std::map<std::string, std::string>;

// $STOREAPI_BUILD_DIR/storeapi-dispatch with exactly `settings` as its STOREAPI_*
// environment (nothing inherited), stderr kept in a file for log assertions.
class DispatcherProcess {
 public:
  explicit DispatcherProcess(const Settings& settings);
  ~DispatcherProcess();  // SIGKILL if still running
  DispatcherProcess(const DispatcherProcess&) = delete;
  DispatcherProcess& operator=(const DispatcherProcess&) = delete;

  // SIGTERM, then waits (up to 30 s) and returns the exit code (-1: killed by a signal).
  int stop();
  // SIGKILL, as a crash would end it.
  void kill();
  std::string log() const;

 private:
  int wait_for_exit();

  int pid_ = -1;
  std::string log_path_;
};

// A path in the temporary directory for mkstemp/mkdtemp ("name-XXXXXX").
std::string temp_path(const char* pattern);

// Waits for child `pid` up to `timeout`, then SIGKILLs it. Returns its exit code, or -1
// when a signal ended it.
int wait_for_child(int pid, std::chrono::seconds timeout);

}  // namespace storeapi::testing
