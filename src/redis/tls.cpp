#include "redis/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <array>
#include <new>

#include "common/env.hpp"

namespace storeapi::redis {
namespace {

// The oldest error on this thread's OpenSSL queue, which is emptied.
std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "TLS error";
  std::array<char, 256> text;
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

bool is_address(const std::string& host) {
  unsigned char parsed[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), parsed) == 1 || ::inet_pton(AF_INET6, host.c_str(), parsed) == 1;
}

}  // namespace

std::shared_ptr<TlsContext> TlsContext::load(const TlsFiles& files) {
  ERR_clear_error();
  SSL_CTX* context = SSL_CTX_new(TLS_client_method());
  if (!context) throw std::bad_alloc();
  std::shared_ptr<TlsContext> owner(new TlsContext(context));
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
  const bool cas = files.ca_file.empty() ? SSL_CTX_set_default_verify_paths(context) == 1
                                         : SSL_CTX_load_verify_locations(context, files.ca_file.c_str(), nullptr) == 1;
  if (!cas)
    throw env::SettingError("STOREAPI_REDIS_CA_FILE: cannot load " +
                            (files.ca_file.empty() ? "the system's CAs" : files.ca_file) + ": " + openssl_error());
  if (files.cert_file.empty() != files.key_file.empty())
    throw env::SettingError("STOREAPI_REDIS_CERT_FILE and STOREAPI_REDIS_KEY_FILE: a client certificate needs both");
  if (!files.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(context, files.cert_file.c_str()) != 1)
      throw env::SettingError("STOREAPI_REDIS_CERT_FILE: cannot load " + files.cert_file + ": " + openssl_error());
    if (SSL_CTX_use_PrivateKey_file(context, files.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(context) != 1)
      throw env::SettingError("STOREAPI_REDIS_KEY_FILE: cannot use " + files.key_file +
                              " with the certificate: " + openssl_error());
  }
  return owner;
}

TlsContext::~TlsContext() { SSL_CTX_free(context_); }

TlsSession::TlsSession(const TlsContext& context, const std::string& host)
    : ssl_(SSL_new(context.get())), input_(BIO_new(BIO_s_mem())), output_(BIO_new(BIO_s_mem())) {
  if (!ssl_ || !input_ || !output_) {
    SSL_free(ssl_);
    BIO_free(input_);
    BIO_free(output_);
    throw std::bad_alloc();
  }
  SSL_set_bio(ssl_, input_, output_);
  SSL_set_connect_state(ssl_);
  // The certificate must name the URL's host: an IP address among its addresses, a name
  // among its DNS names (and the name goes out as SNI).
  if (is_address(host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
  } else {
    SSL_set1_host(ssl_, host.c_str());
    SSL_set_tlsext_host_name(ssl_, host.c_str());
  }
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

bool TlsSession::fail(int result) {
  const int reason = SSL_get_error(ssl_, result);
  if (reason == SSL_ERROR_WANT_READ) return true;
  if (const long verified = SSL_get_verify_result(ssl_); verified != X509_V_OK)
    error_ = std::string("certificate verify failed: ") + X509_verify_cert_error_string(verified);
  else if (reason == SSL_ERROR_ZERO_RETURN)
    error_ = "the server closed the TLS session";
  else
    error_ = openssl_error();
  ERR_clear_error();
  return false;
}

TlsSession::Step TlsSession::handshake() {
  const int result = SSL_do_handshake(ssl_);
  if (result == 1) return Step::done;
  return fail(result) ? Step::want_input : Step::failed;
}

void TlsSession::put_input(const char* data, std::size_t size) {
  // A memory BIO takes everything (it grows).
  BIO_write(input_, data, static_cast<int>(size));
}

bool TlsSession::has_output() const { return BIO_ctrl_pending(output_) > 0; }

void TlsSession::take_output(std::string& out) {
  const std::size_t pending = BIO_ctrl_pending(output_);
  if (pending == 0) return;
  const std::size_t at = out.size();
  out.resize(at + pending);
  BIO_read(output_, out.data() + at, static_cast<int>(pending));
}

bool TlsSession::encrypt(std::string_view plain) {
  // Into a memory BIO a write is whole or fails.
  if (plain.empty()) return true;
  const int result = SSL_write(ssl_, plain.data(), static_cast<int>(plain.size()));
  if (result > 0) return true;
  if (fail(result)) error_ = "TLS wanted to read before writing";
  return false;
}

bool TlsSession::decrypt(std::string& plain) {
  std::array<char, 16384> buffer;
  for (;;) {
    const int n = SSL_read(ssl_, buffer.data(), static_cast<int>(buffer.size()));
    if (n > 0) {
      plain.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    return fail(n);
  }
}

}  // namespace storeapi::redis
