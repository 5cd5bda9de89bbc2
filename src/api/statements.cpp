#include "api/statements.hpp"

#include <vector>

#include "auth/authenticator.hpp"
#include "auth/invalidation.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all{
      auth::kKeyByHash,
      auth::kConfirmInvalidation,
  };
  return all;
}

}  // namespace storeapi::api
