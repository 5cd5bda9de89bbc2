#pragma once
// What the application answers without an API key — GET /healthz 200, any other path 401
// (authentication comes before routing), POST /healthz 405 (its body read and dropped) —
// and the check that the server still serves healthz on a fresh connection (after
// something was thrown at it).
#include <gtest/gtest.h>

#include <string>

#include "common/build_version.hpp"
#include "support/http_client.hpp"

namespace storeapi::testing {

// The liveness answer names the release (docs/DEPLOY.md, "Upgrading").
inline const std::string kHealthzBody = "{\"status\":\"ok\",\"version\":\"" + std::string(build::version()) + "\"}";
inline constexpr int kKeylessPathStatus = 401;  // any path but the health checks, without a key
inline constexpr int kPostHealthzStatus = 405;  // a complete request with a body, refused by method

inline ::testing::AssertionResult serves_healthz(std::uint16_t port) {
  HttpClient client(port);
  HttpResponse res = client.request("GET", "/healthz");
  if (res.status != 200 || res.body != kHealthzBody)
    return ::testing::AssertionFailure() << "GET /healthz answered " << res.status << " " << res.body;
  return ::testing::AssertionSuccess();
}

}  // namespace storeapi::testing
