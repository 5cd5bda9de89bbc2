#pragma once
// A variant's stock history, as `storeapi-admin stock history` prints it.
#include "admin/base/json.hpp"

#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// {"object":"list","data":[movements newest first]}; CommandError when the store or the
// variant (of that store) does not exist.
void write_stock_history(JsonWriter& json, pqxx::work& work, const std::string& store_id,
                         const std::string& variant_id);

}  // namespace storeapi::admin
