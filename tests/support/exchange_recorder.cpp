#include "support/exchange_recorder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>

#include "json/writer.hpp"

namespace storeapi::testing {
namespace {

// The file this process appends to, opened on first use; -1 when recording is off.
int exchanges_fd() {
  static const int fd = [] {
    const char* dir = std::getenv("STOREAPI_TEST_EXCHANGES_DIR");
    if (dir == nullptr || *dir == '\0') return -1;
    ::mkdir(dir, 0755);  // the first test process to record makes it; EEXIST is fine
    std::string program = "test";
    std::ifstream comm("/proc/self/comm");
    std::getline(comm, program);
    const std::string path = std::string(dir) + "/" + program + "-" + std::to_string(::getpid()) + ".jsonl";
    const int opened = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (opened < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    return opened;
  }();
  return fd;
}

}  // namespace

void record_exchange(std::string_view method, std::string_view target, const HttpResponse& response) {
  const int fd = exchanges_fd();
  if (fd < 0) return;
  std::string line;
  json::Writer w(line);
  w.begin_object();
  w.key("method").string(method);
  w.key("target").string(target);
  w.key("status").integer(response.status);
  w.key("headers").begin_array();
  for (const auto& [name, value] : response.headers) w.begin_array().string(name).string(value).end_array();
  w.end_array();
  w.key("body").string(response.body);
  w.end_object();
  line += '\n';
  // One write per line (O_APPEND), under a lock for the tests that run clients on threads.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw std::runtime_error(std::string("recording an exchange failed: ") + std::strerror(errno));
}

}  // namespace storeapi::testing
