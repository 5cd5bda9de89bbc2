#pragma once
// An HTTP receiver on 127.0.0.1 (a port of its own), for dispatcher tests and the
// benchmark: records every request and answers as its behaviour says (status, delay).
// Given a certificate and key (support/test_certificates.hpp) it speaks HTTPS (OpenSSL);
// a client that refuses the certificate never gets as far as a recorded request.
//
//   WebhookReceiver receiver;                                  // 200 "ok" to everything
//   receiver.set_behaviour([](const ReceivedRequest&, std::size_t n) {
//     return Reply{n < 2 ? 500 : 200};                          // two failures, then success
//   });
//   ... point an endpoint at receiver.url() ...
//   receiver.wait_for_count(3, std::chrono::seconds(30));
//
// One thread per connection (curl keeps few connections alive); requests parsed by llhttp.
#include "support/test_certificates.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace storeapi::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::int64_t received_at_micros = 0;         // wall clock, Unix epoch

  // The header's value, or "" when absent.
  std::string header(const std::string& lower_case_name) const;
};

struct Reply {
  int status = 200;
  std::chrono::milliseconds delay{0};  // wait before answering (cut short when stopping)
  std::string body = "ok";
  std::map<std::string, std::string> headers = {};
};

using Behaviour = std::function<Reply(const ReceivedRequest& request, std::size_t index)>;

class WebhookReceiver {
 public:
  explicit WebhookReceiver(const std::optional<TlsIdentity>& tls = std::nullopt);
  ~WebhookReceiver();
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  // `index` counts the requests received before this one.
  void set_behaviour(Behaviour behaviour);

  int port() const { return port_; }
  std::string url(const std::string& path = "/hooks") const;

  std::vector<ReceivedRequest> requests() const;
  std::size_t count() const;
  // True once at least `n` requests have arrived, false if `timeout` passes first.
  bool wait_for_count(std::size_t n, std::chrono::milliseconds timeout) const;

 private:
  void accept_loop();
  void serve(int fd);
  Reply decide(const ReceivedRequest& request);
  void sleep_unless_stopping(std::chrono::milliseconds delay);

  void* tls_ = nullptr;  // SSL_CTX* when speaking HTTPS, kept out of this header
  int listen_fd_ = -1;
  int port_ = 0;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  Behaviour behaviour_;
  std::vector<ReceivedRequest> requests_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// A loopback port that refuses connections (bound, never listening) while this lives.
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  std::string url() const;

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace storeapi::testing
