#pragma once
// The real build/storeapi as a child process for integration tests: started on a free
// port (STOREAPI_LISTEN=127.0.0.1:0, the port read back from its "listening on" line),
// access log off, stderr kept in a temporary file for diagnostics; stopped with SIGTERM
// when the object goes away.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace storeapi::testing {

struct AuthServerOptions {
  std::string database_url;
  unsigned threads = 2;
  unsigned db_conns_per_thread = 2;
  // Further STOREAPI_* settings, e.g. {"STOREAPI_IDLE_TIMEOUT_MS", "5000"}.
  std::vector<std::pair<std::string, std::string>> env;
};

class AuthServer {
 public:
  // Starts $STOREAPI_BUILD_DIR/storeapi and waits (up to 30 s) until it listens; throws,
  // with its stderr, when it does not.
  explicit AuthServer(AuthServerOptions options);
  ~AuthServer();
  AuthServer(const AuthServer&) = delete;
  AuthServer& operator=(const AuthServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  pid_t pid() const noexcept { return pid_; }
  const AuthServerOptions& options() const noexcept { return options_; }
  // What the server wrote on stderr so far.
  std::string log() const;
  // Open file descriptors of the server process (to spot leaks).
  std::size_t open_fds() const;

 private:
  AuthServerOptions options_;
  std::string log_path_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace storeapi::testing
