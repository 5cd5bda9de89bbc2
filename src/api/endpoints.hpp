#pragma once
// Every /v1 endpoint, one function each, dispatched by route id (application.cpp). Each
// validates its input, runs its database unit and fills the response.
#include "api/context.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

runtime::task<void> get_store(Context& ctx);

}  // namespace storeapi::api
