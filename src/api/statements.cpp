#include "api/statements.hpp"

#include <vector>

#include "auth/authenticator.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all{
      auth::kKeyByHash,
  };
  return all;
}

}  // namespace storeapi::api
