#pragma once
// STOREAPI_MAX_CONNECTIONS and the process's open-file limit must agree: every client
// connection is a descriptor, and a process that runs out of them fails accept() (and
// database reconnects) instead of answering 503 at its cap. At start the soft limit is
// raised as far as the hard limit allows; a cap that still does not fit is refused.
#include <cstddef>
#include <optional>
#include <string>

#include "app/config.hpp"

namespace storeapi::app {

// A core's database connections: its pool's, plus one per standby of
// STOREAPI_REPLICA_URLS (db/standbys.cpp opens one connection per standby per core).
std::size_t database_connections_per_core(const Config& config) noexcept;

// Descriptors the process needs besides its client connections: stdio, the LISTEN
// connection and slack for a few transient ones, and per core its listener, io_uring,
// wake-up eventfd, database connections, Redis connection (fleet mode) and the one
// accepted to be refused past the cap.
std::size_t reserved_descriptors(unsigned threads, std::size_t db_connections_per_core) noexcept;

// The largest connection cap that `open_files` descriptors can honour (0 if none).
std::size_t connections_within(std::size_t open_files, unsigned threads, std::size_t db_connections_per_core) noexcept;

// Raises RLIMIT_NOFILE's soft limit to the hard limit, then checks the cap against it.
// An explicitly configured cap that does not fit throws env::SettingError (one line); the
// default cap is lowered to fit instead, and the returned notice says so (empty when
// nothing changed).
std::string fit_open_file_limit(Config& config);

}  // namespace storeapi::app
