#include "admin/webhooks.hpp"

#include "admin/stores.hpp"
#include "admin/validate.hpp"
#include "common/crypto.hpp"

#include <array>

namespace storeapi::admin {

NewWebhook add_webhook(pqxx::work& work, const std::string& store_id, const std::string& url) {
  check_url(url, "url");
  require_store(work, store_id);
  std::array<std::uint8_t, 24> bytes{};
  crypto::random_bytes(bytes);
  std::string secret = "whsec_" + crypto::base64(crypto::as_chars(bytes));
  auto row = work.exec_params1(
      "insert into webhook_endpoints (store_id, url, secret) values ($1, $2, $3) returning id",
      store_id, url, secret);
  return {row[0].c_str(), secret};
}

}  // namespace storeapi::admin
