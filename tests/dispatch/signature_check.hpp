#pragma once
// The receiver's side of Standard Webhooks, written from the specification for the tests:
// does any signature in webhook-signature match `secret`?
#include "common/crypto.hpp"
#include "support/webhook_receiver.hpp"

#include <sstream>
#include <string>

namespace storeapi::testing {

inline bool signed_with(const ReceivedRequest& request, const std::string& secret) {
  auto key = crypto::base64_decode(secret.substr(std::string("whsec_").size()));
  if (!key) return false;
  std::string content = request.header("webhook-id") + "." + request.header("webhook-timestamp") + "." + request.body;
  std::string expected = "v1," + crypto::base64(crypto::as_chars(crypto::hmac_sha256(*key, content)));
  std::istringstream signatures(request.header("webhook-signature"));
  for (std::string signature; signatures >> signature;)
    if (signature == expected) return true;
  return false;
}

}  // namespace storeapi::testing
