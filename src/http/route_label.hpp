#pragma once
// What the HTTP layer knows of the route a handler matched: the template that labels the
// request's metrics and access-log line ("/v1/orders/{id}", never the raw path), and its
// index among the handler's routes (ServerOptions::routes), so that counting a request
// finds its series without a lookup. The routes themselves are the application's.
#include <cstddef>
#include <string_view>

namespace storeapi::http {

struct RouteLabel {
  std::size_t index;
  std::string_view pattern;
};

}  // namespace storeapi::http
