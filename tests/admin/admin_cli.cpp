#include "admin_cli.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <stdexcept>

namespace storeapi::testing {
namespace {

std::string admin_path() {
  const char* dir = std::getenv("STOREAPI_BUILD_DIR");
  if (!dir || !*dir)
    throw std::runtime_error("STOREAPI_BUILD_DIR is not set: run the tests through tools/test");
  return std::string(dir) + "/storeapi-admin";
}

// Reads both pipes until both close, so a child filling one cannot block on it.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  std::array<pollfd, 2> fds = {pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks = {&out, &err};
  int open = 2;
  char buf[4096];
  while (open > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) throw std::runtime_error("poll failed");
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

namespace {

// Forks and execs storeapi-admin with stdout and stderr on `out_fd` and `err_fd`.
pid_t spawn_admin(const std::vector<std::string>& args, const std::optional<std::string>& database_url, int out_fd,
                  int err_fd) {
  std::string path = admin_path();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    if (database_url) setenv("STOREAPI_DATABASE_URL", database_url->c_str(), 1);
    else unsetenv("STOREAPI_DATABASE_URL");
    std::vector<char*> argv;
    argv.push_back(path.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

CliResult run_admin(const std::vector<std::string>& args, const std::optional<std::string>& database_url) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = spawn_admin(args, database_url, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CliResult result;
  drain(out_pipe[0], err_pipe[0], result.out, result.err);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

pid_t start_admin(const std::vector<std::string>& args, const std::optional<std::string>& database_url) {
  int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) throw std::runtime_error("cannot open /dev/null");
  pid_t pid = spawn_admin(args, database_url, null_fd, null_fd);
  close(null_fd);
  return pid;
}

simdjson::dom::element parse_json(simdjson::dom::parser& parser, const std::string& text) {
  return parser.parse(simdjson::padded_string(text));
}

}  // namespace storeapi::testing
