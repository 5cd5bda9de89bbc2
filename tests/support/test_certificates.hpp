#pragma once
// A throwaway certificate authority, and a server and a client certificate it signed, made with OpenSSL's
// libcrypto when constructed and written as PEM files to a directory of their own (removed
// with the object): for HTTPS receivers in tests.
//
//   TestCertificates certs;                    // for 127.0.0.1 and localhost
//   WebhookReceiver receiver(certs.server());  // https://127.0.0.1:PORT/hooks
//   settings["STOREAPI_WEBHOOK_CA_FILE"] = certs.ca_file();
#include <string>

namespace storeapi::testing {

// A certificate chain and its private key, both PEM files.
struct TlsIdentity {
  std::string certificate_file;
  std::string key_file;
};

class TestCertificates {
 public:
  // `names`: the server certificate's subjectAltName in OpenSSL's notation.
  explicit TestCertificates(const std::string& names = "IP:127.0.0.1,DNS:localhost");
  ~TestCertificates();
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;

  // The CA's certificate alone: what a client trusts.
  std::string ca_file() const { return dir_ + "/ca.pem"; }
  TlsIdentity server() const { return {dir_ + "/server.pem", dir_ + "/server.key"}; }
  // For a client that must prove who it is (extended key usage clientAuth).
  TlsIdentity client() const { return {dir_ + "/client.pem", dir_ + "/client.key"}; }

 private:
  std::string dir_;
};

}  // namespace storeapi::testing
