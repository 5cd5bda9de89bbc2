#pragma once
// TLS to Redis (rediss://) with OpenSSL, on memory BIOs: OpenSSL encrypts and decrypts,
// the caller moves the bytes with whatever I/O it has (the core's io_uring in
// redis/client.hpp, blocking poll() in redis/probe.hpp). The server's certificate is
// verified against the system's CAs or a CA file, and must name the host of the URL.
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

namespace storeapi::redis {

struct TlsFiles {
  std::string ca_file;    // empty: the system's CAs
  std::string cert_file;  // a client certificate (chain), PEM; with key_file
  std::string key_file;
};

// What every connection shares: trusted CAs and the client certificate. Thread-safe.
class TlsContext {
 public:
  // Throws env::SettingError (one line, naming the setting) when a file cannot be read or
  // the key does not fit.
  static std::shared_ptr<TlsContext> load(const TlsFiles& files);
  ~TlsContext();
  SSL_CTX* get() const noexcept { return context_; }

 private:
  explicit TlsContext(SSL_CTX* context) : context_(context) {}
  SSL_CTX* context_;
};

// One connection's TLS state. Drive it with handshake() until done, sending what
// take_output() gives after every call and feeding what arrives to put_input().
class TlsSession {
 public:
  TlsSession(const TlsContext& context, const std::string& host);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  enum class Step { done, want_input, failed };
  Step handshake();
  // Bytes received from the peer.
  void put_input(const char* data, std::size_t size);
  // Appends the bytes to send to the peer, if any.
  void take_output(std::string& out);
  bool has_output() const;
  // Encrypts `plain` into the output.
  bool encrypt(std::string_view plain);
  // Appends what the input so far decrypts to; false when the peer sent an alert or
  // closed the session.
  bool decrypt(std::string& plain);
  // Why the last call failed (certificate verification included), one line.
  const std::string& error() const noexcept { return error_; }

 private:
  bool fail(int result);

  SSL* ssl_;
  BIO* input_;   // owned by ssl_
  BIO* output_;  // owned by ssl_
  std::string error_;
};

}  // namespace storeapi::redis
