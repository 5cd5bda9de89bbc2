#include "metrics/process_metrics.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/build_version.hpp"

namespace storeapi::metrics {
namespace {

double resident_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double open_fds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return 0;
  int n = 0;
  while (dirent* e = ::readdir(dir))
    if (e->d_name[0] != '.') ++n;
  ::closedir(dir);
  return n - 1;  // the directory's own fd
}

}  // namespace

void add_process_metrics(Registry& registry, std::string_view build_info_name) {
  double started = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  registry.gauge(build_info_name, "Always 1; the labels name the build.", {"version", "commit"})
      .with({build::version(), build::commit()})
      .inc();
  registry.computed("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.",
                    Kind::gauge, [started] { return started; });
  registry.computed("process_cpu_seconds_total", "User and system CPU time spent in seconds.", Kind::counter,
                    cpu_seconds);
  registry.computed("process_resident_memory_bytes", "Resident memory size in bytes.", Kind::gauge, resident_bytes);
  registry.computed("process_open_fds", "Number of open file descriptors.", Kind::gauge, open_fds);
}

}  // namespace storeapi::metrics
