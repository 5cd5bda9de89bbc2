#include "app/open_files.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/env.hpp"

namespace storeapi::app {
namespace {

constexpr std::size_t kProcessReserve = 16;  // stdio, LISTEN connection, transient files
// listener, io_uring, eventfd, a refused accept, and the Redis connection of fleet mode
// (counted always: one descriptor per core is not worth a second rule).
constexpr std::size_t kCoreReserve = 5;

}  // namespace

std::size_t database_connections_per_core(const Config& config) noexcept {
  return std::size_t{config.db_conns_per_thread} + config.replica_urls.size();
}

std::size_t reserved_descriptors(unsigned threads, std::size_t db_connections_per_core) noexcept {
  return kProcessReserve + std::size_t{threads} * (kCoreReserve + db_connections_per_core);
}

std::size_t connections_within(std::size_t open_files, unsigned threads, std::size_t db_connections_per_core) noexcept {
  std::size_t reserved = reserved_descriptors(threads, db_connections_per_core);
  return open_files > reserved ? open_files - reserved : 0;
}

std::string fit_open_file_limit(Config& config) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0)
    throw env::SettingError(std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno));
  if (files.rlim_cur < files.rlim_max) {
    rlimit raised{files.rlim_max, files.rlim_max};
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  }
  // RLIM_INFINITY is the largest rlim_t: it honours every cap.
  std::size_t open_files = static_cast<std::size_t>(std::min<rlim_t>(files.rlim_cur, SIZE_MAX));
  const std::size_t db_connections = database_connections_per_core(config);
  std::size_t fits = connections_within(open_files, config.threads, db_connections);
  if (config.max_connections <= fits) return {};
  std::string why = "the open-file limit is " + std::to_string(open_files) + " (hard limit " +
                    (files.rlim_max == RLIM_INFINITY ? std::string("unlimited") : std::to_string(files.rlim_max)) +
                    "), and " + std::to_string(reserved_descriptors(config.threads, db_connections)) +
                    " descriptors are needed besides connections";
  if (fits == 0)
    throw env::SettingError("no connection fits: " + why + "; raise the hard limit (ulimit -Hn) or use fewer threads");
  if (config.max_connections_set)
    throw env::SettingError("STOREAPI_MAX_CONNECTIONS=" + std::to_string(config.max_connections) +
                            " cannot be honoured: " + why + "; set it to at most " + std::to_string(fits) +
                            " or raise the hard limit (ulimit -Hn)");
  std::string notice = "STOREAPI_MAX_CONNECTIONS lowered from its default " + std::to_string(config.max_connections) +
                       " to " + std::to_string(fits) + ": " + why;
  config.max_connections = fits;
  return notice;
}

}  // namespace storeapi::app
