#include "api/statements.hpp"

#include <vector>

#include "api/endpoints.hpp"
#include "auth/authenticator.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements() {
  static const std::vector<db::Statement> all = [] {
    std::vector<db::Statement> list{auth::kKeyByHash, kOrderById, kBookingById, kProductById, kCustomerById};
    for (const PageStatements* pages : {&order_pages(), &booking_pages(), &product_pages(), &customer_pages()}) {
      list.insert(list.end(), pages->all().begin(), pages->all().end());
    }
    return list;
  }();
  return all;
}

}  // namespace storeapi::api
