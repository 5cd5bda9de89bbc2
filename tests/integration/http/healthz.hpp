#pragma once
// The one route the placeholder application answers, and the check that the server still
// serves it on a fresh connection (after something was thrown at it).
#include <gtest/gtest.h>

#include <string>

#include "support/http_client.hpp"

namespace storeapi::testing {

inline constexpr std::string_view kHealthzBody = "{\"status\":\"ok\"}";

inline ::testing::AssertionResult serves_healthz(std::uint16_t port) {
  HttpClient client(port);
  HttpResponse res = client.request("GET", "/healthz");
  if (res.status != 200 || res.body != kHealthzBody)
    return ::testing::AssertionFailure() << "GET /healthz answered " << res.status << " " << res.body;
  return ::testing::AssertionSuccess();
}

}  // namespace storeapi::testing
