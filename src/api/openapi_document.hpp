#pragma once
// openapi/storeapi.yaml as JSON, embedded at build time (src/api/embed_openapi.py): the
// body of GET /openapi.json, which needs no key.
#include <string_view>

namespace storeapi::api {

std::string_view openapi_document();

}  // namespace storeapi::api
