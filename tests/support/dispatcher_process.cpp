#include "support/dispatcher_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace storeapi::testing {
namespace {

std::string build_dir() {
  const char* dir = std::getenv("STOREAPI_BUILD_DIR");
  if (!dir || !*dir) throw std::runtime_error("STOREAPI_BUILD_DIR is not set: run the tests through tools/test");
  return dir;
}

// The parent's environment without STOREAPI_*, plus `settings`.
std::vector<std::string> child_environment(const Settings& settings) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("STOREAPI_", 0) != 0) env.emplace_back(*e);
  for (const auto& [name, value] : settings) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& item : items) out.push_back(item.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string temp_path(const char* pattern) { return (std::filesystem::temp_directory_path() / pattern).string(); }

int wait_for_child(int pid, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

DispatcherProcess::DispatcherProcess(const Settings& settings) {
  std::string path = build_dir() + "/storeapi-dispatch";
  log_path_ = temp_path("storeapi-dispatch-XXXXXX");
  int log_fd = mkstemp(log_path_.data());
  if (log_fd < 0) throw std::runtime_error("mkstemp failed");
  auto env = child_environment(settings);
  auto envp = c_strings(env);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(log_fd, STDERR_FILENO);
    char* argv[] = {path.data(), nullptr};
    execve(path.c_str(), argv, envp.data());
    _exit(127);
  }
  close(log_fd);
}

DispatcherProcess::~DispatcherProcess() {
  if (pid_ > 0) kill();
  std::filesystem::remove(log_path_);
}

int DispatcherProcess::wait_for_exit() {
  int code = wait_for_child(pid_, std::chrono::seconds(30));
  pid_ = -1;
  return code;
}

int DispatcherProcess::stop() {
  ::kill(pid_, SIGTERM);
  return wait_for_exit();
}

void DispatcherProcess::kill() {
  ::kill(pid_, SIGKILL);
  wait_for_exit();
}

std::string DispatcherProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace storeapi::testing
