#pragma once
// A redis-server of the test's own on a free loopback port and a socket file named after
// it (no persistence), for the fleet tests. It can be killed and started again on the
// same port, as an outage would. Secured as in production by default: only an ACL user
// with a password gets in, to the keys storeapi:* (the default user is off, the rule of
// docs/DEPLOY.md "Securing the dependencies"); or the default user's password
// (requirepass), or TLS only (no plain TCP port) with a certificate of the test's CA.
#include <signal.h>

#include <cstdint>
#include <memory>
#include <string>

#include "support/server_process.hpp"
#include "support/test_certificates.hpp"

namespace storeapi::testing {

struct RedisOptions {
  // An ACL user of that name with `password`, the default user off; empty: the default
  // user with `password` as requirepass; both empty: open to anyone.
  std::string user = "storeapi";
  // Holds '@', '/' and ':' as real passwords may (the URL carries them unescaped).
  std::string password = "fleet-p@ss/w:rd";
  // TLS on the port instead of plain TCP, with the server certificate of `tls`.
  const TestCertificates* tls = nullptr;
  bool require_client_certificate = false;  // with tls
  // On a host of a NetLab (support/net_lab.hpp): run in its network namespace, listening
  // on its address; empty: loopback.
  std::string netns{};
  std::string address = "127.0.0.1";
};

class RedisProcess {
 public:
  // Starts it; returns once it answers PING. Throws with its log when it does not.
  explicit RedisProcess(RedisOptions options = {});
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // SIGKILL; returns once it is gone (its socket file too).
  void kill();
  // Starts it again on the same port (empty: nothing was persisted).
  void start();
  // SIGSTOP / SIGCONT: a Redis that keeps its connections but never answers.
  void freeze() { process_->signal(SIGSTOP); }
  void thaw() { process_->signal(SIGCONT); }
  bool running() const noexcept { return process_ != nullptr; }

  std::uint16_t port() const noexcept { return port_; }
  // STOREAPI_REDIS_URL for it, with its credentials; through another port (a forwarder to
  // this one) when `port` is given.
  std::string url(std::uint16_t port = 0) const;
  // The same Redis through its socket file (STOREAPI_REDIS_URL's unix:// form; never TLS).
  std::string socket_url() const { return "unix://" + credentials() + socket_path(); }

  // Sends one inline command (through the socket file, signed in) and returns the first
  // line of the answer ("" when none).
  std::string command(const std::string& line) const;
  // The same, returning a bulk string's whole text (e.g. INFO's).
  std::string bulk_command(const std::string& line) const;

 private:
  std::string socket_path() const { return "/tmp/storeapi-test-redis-" + std::to_string(port_) + ".sock"; }
  std::string config_path() const { return "/tmp/storeapi-test-redis-" + std::to_string(port_) + ".conf"; }
  std::string credentials() const;
  std::string talk(const std::string& line, bool whole_bulk) const;

  RedisOptions options_;
  std::uint16_t port_;
  std::unique_ptr<ServerProcess> process_;
};

}  // namespace storeapi::testing
