#pragma once
// Records the HTTP exchanges integration tests make, so that openapi/validate-exchanges.mjs
// can check every response against the OpenAPI document after the tests have run. Active
// when STOREAPI_TEST_EXCHANGES_DIR names a directory: each process appends one JSON line
// per exchange ({"method","target","status","headers":[[name,value],...],"body"}) to
// <dir>/<test binary>-<pid>.jsonl. Without the variable it does nothing.
#include <string_view>

#include "support/http_client.hpp"

namespace storeapi::testing {

void record_exchange(std::string_view method, std::string_view target, const HttpResponse& response);

}  // namespace storeapi::testing
