#include "api/application.hpp"

namespace storeapi::api {

Application::Application(const app::Config& config) : config_(config) {}

runtime::task<void> Application::handle(const http::Request& req, http::Response& res) {
  if (req.path == "/healthz") {
    res.body = "{\"status\":\"ok\"}";
    co_return;
  }
  res.status = 404;
  res.body = "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"route_not_found\"}}";
}

void Application::reject(http::Rejection why, std::string_view, http::Response& res) {
  switch (why) {
    case http::Rejection::bad_request: res.status = 400; break;
    case http::Rejection::headers_too_large: res.status = 431; break;
    case http::Rejection::payload_too_large: res.status = 413; break;
    case http::Rejection::request_timeout: res.status = 408; break;
    case http::Rejection::too_many_connections: res.status = 503; break;
    case http::Rejection::internal_error: res.status = 500; break;
  }
  res.body = "{}";
}

}  // namespace storeapi::api
