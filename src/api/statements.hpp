#pragma once
// Every statement the server prepares on each pooled connection.
#include <span>

#include "db/statement.hpp"

namespace storeapi::api {

std::span<const db::Statement> statements();

}  // namespace storeapi::api
