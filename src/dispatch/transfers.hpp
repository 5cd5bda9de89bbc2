#pragma once
// Concurrent HTTP(S) POSTs and SMTP sends through one libcurl multi handle, which keeps
// connections to receivers alive between deliveries. Single-threaded: the dispatcher
// calls wait() in its loop, passing its own descriptors (PostgreSQL, signals) to watch
// alongside curl's.
#include "common/ip_networks.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace storeapi::dispatch {

struct HttpPost {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  std::chrono::milliseconds timeout;
};

struct MailSend {
  std::string smtp_url;  // smtp://host:port or smtps://..., credentials in the URL
  std::string from;      // envelope sender
  std::string to;        // envelope recipient
  std::string message;   // RFC 5322 text, CRLF line ends
  std::chrono::milliseconds timeout;
  // smtp://: the relay must take STARTTLS (else the mail is not sent); smtps:// is TLS anyway.
  bool require_tls = true;
};

struct TransferResult {
  std::uint64_t tag = 0;               // what the caller passed to start()
  bool completed = false;              // the exchange finished (any HTTP status)
  long response_code = 0;              // HTTP status or last SMTP reply; 0 = none
  std::string error;                   // curl's explanation when !completed
  bool refused = false;                // a webhook destination the policy refuses; nothing was sent
  int curl_code = 0;                   // its CURLcode (timeout, TLS, connection: metrics)
  std::chrono::milliseconds latency{0};
  std::string response_head;           // the first bytes of an HTTP answer (excerpt.hpp)
  std::size_t response_bytes = 0;      // the answer's whole length
};

struct WatchedFd {
  int fd = -1;
  bool readable = false;  // set by wait()
};

struct TransferOptions {
  // The PEM CAs that https servers of POSTs are verified by, instead of the system's;
  // unset = the system's.
  std::optional<std::string> webhook_ca_file;
  // Which addresses a POST may connect to, checked on each address after name resolution.
  net::DestinationPolicy webhook_destinations;
  // As webhook_ca_file, for the SMTP relay.
  std::optional<std::string> smtp_ca_file;
};

class Transfers {
 public:
  explicit Transfers(TransferOptions options);
  ~Transfers();
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  // POST without following redirects, HTTP and HTTPS only, never through a proxy, only to
  // addresses the destination policy allows; an https server's certificate and host name
  // are always verified.
  void start(std::uint64_t tag, HttpPost post);
  void start(std::uint64_t tag, MailSend mail);
  std::size_t active() const { return transfers_.size(); }

  // Waits until curl has work, one of `watched` is readable or `timeout` passes, then
  // moves every transfer forward.
  void wait(std::span<WatchedFd> watched, std::chrono::milliseconds timeout);

  // The transfers that ended since the last call.
  std::vector<TransferResult> take_finished();

 private:
  struct Transfer;
  void add(std::unique_ptr<Transfer> transfer);

  TransferOptions options_;
  void* multi_;  // CURLM*, kept out of this header
  std::unordered_map<void*, std::unique_ptr<Transfer>> transfers_;  // by CURL*
  std::vector<TransferResult> finished_;
};

}  // namespace storeapi::dispatch
