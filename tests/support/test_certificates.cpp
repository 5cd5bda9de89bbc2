#include "support/test_certificates.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace storeapi::testing {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Certificate = std::unique_ptr<X509, decltype(&X509_free)>;
using Extensions = std::vector<std::pair<int, std::string>>;  // (NID, value in OpenSSL's notation)

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("test certificates: " + what + " failed");
}

Key new_key() {
  Key key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  check(key != nullptr, "EVP_EC_gen");
  return key;
}

// Valid from an hour ago for a day. Self-signed when `issuer` is null (then `issuer_key`
// is `key`'s own).
Certificate make_certificate(const std::string& common_name, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
                             const Extensions& extensions) {
  Certificate certificate(X509_new(), &X509_free);
  X509* c = certificate.get();
  check(c && X509_set_version(c, X509_VERSION_3), "X509_new");
  check(ASN1_INTEGER_set(X509_get_serialNumber(c), static_cast<long>(std::random_device{}() >> 1)), "serial");
  check(X509_gmtime_adj(X509_getm_notBefore(c), -3600) && X509_gmtime_adj(X509_getm_notAfter(c), 86400), "validity");
  check(X509_NAME_add_entry_by_txt(X509_get_subject_name(c), "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0),
        "subject");
  check(X509_set_issuer_name(c, X509_get_subject_name(issuer ? issuer : c)) && X509_set_pubkey(c, key), "issuer");
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer ? issuer : c, c, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
    bool added = extension && X509_add_ext(c, extension, -1);
    X509_EXTENSION_free(extension);
    check(added, "extension " + value);
  }
  check(X509_sign(c, issuer_key, EVP_sha256()) > 0, "X509_sign");
  return certificate;
}

template <class Write>
void write_pem(const std::string& path, Write write) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "w"), &std::fclose);
  check(file && write(file.get()), "writing " + path);
}

}  // namespace

TestCertificates::TestCertificates(const std::string& names) {
  dir_ = (std::filesystem::temp_directory_path() / "storeapi-tls-XXXXXX").string();
  check(mkdtemp(dir_.data()) != nullptr, "mkdtemp");
  try {
    Key ca_key = new_key(), server_key = new_key(), client_key = new_key();
    Certificate ca = make_certificate("storeapi test CA", ca_key.get(), nullptr, ca_key.get(),
                                      {{NID_basic_constraints, "critical,CA:TRUE"},
                                       {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                       {NID_subject_key_identifier, "hash"}});
    Certificate server_certificate = make_certificate("storeapi test server", server_key.get(), ca.get(), ca_key.get(),
                                          {{NID_basic_constraints, "critical,CA:FALSE"},
                                           {NID_key_usage, "critical,digitalSignature"},
                                           {NID_ext_key_usage, "serverAuth"},
                                           {NID_subject_alt_name, names},
                                           {NID_authority_key_identifier, "keyid:always"}});
    Certificate client_certificate = make_certificate("storeapi test client", client_key.get(), ca.get(), ca_key.get(),
                                          {{NID_basic_constraints, "critical,CA:FALSE"},
                                           {NID_key_usage, "critical,digitalSignature"},
                                           {NID_ext_key_usage, "clientAuth"},
                                           {NID_authority_key_identifier, "keyid:always"}});
    write_pem(ca_file(), [&](std::FILE* f) { return PEM_write_X509(f, ca.get()) == 1; });
    for (const auto& [identity, certificate, key] : {std::tuple{server(), server_certificate.get(), server_key.get()},
                                                     std::tuple{client(), client_certificate.get(), client_key.get()}}) {
      write_pem(identity.certificate_file, [&](std::FILE* f) { return PEM_write_X509(f, certificate) == 1; });
      write_pem(identity.key_file, [&](std::FILE* f) {
        return PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
      });
    }
  } catch (...) {
    std::filesystem::remove_all(dir_);
    throw;
  }
}

TestCertificates::~TestCertificates() { std::filesystem::remove_all(dir_); }

}  // namespace storeapi::testing
