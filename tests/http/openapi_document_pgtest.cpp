// GET /openapi.json: the OpenAPI document, served without a key, and documenting exactly
// the server's routes with their methods.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>
#include <string>

#include "api/routing/router.hpp"
#include "support/http_client.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

// The OpenAPI operation key of a route's method (routes use only these three).
std::string_view operation_key(http::Method method) {
  switch (method) {
    case http::Method::get: return "get";
    case http::Method::post: return "post";
    case http::Method::patch: return "patch";
    default: return "?";
  }
}

TEST(OpenApiDocument, IsServedWithoutAKeyAsJson) {
  ServerProcess server;
  HttpClient client(server.port());
  HttpResponse res = client.request("GET", "/openapi.json");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(simdjson::padded_string(res.body)).value();
  EXPECT_EQ(std::string_view(doc["openapi"].get_string().value()), "3.1.0");
  EXPECT_EQ(std::string_view(doc["info"]["title"].get_string().value()), "Store Commerce API");

  HttpResponse head = client.request("HEAD", "/openapi.json");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(res.body.size()));
  EXPECT_EQ(client.request("POST", "/openapi.json").status, 405);
}

TEST(OpenApiDocument, DocumentsEveryRouteAndNoOther) {
  ServerProcess server;
  HttpClient client(server.port());
  HttpResponse res = client.request("GET", "/openapi.json");
  ASSERT_EQ(res.status, 200);
  simdjson::dom::parser parser;
  simdjson::dom::object paths = parser.parse(simdjson::padded_string(res.body))["paths"].get_object().value();

  std::set<std::string> documented;  // "get /v1/orders/{id}"
  for (auto [path, item] : paths) {
    const simdjson::dom::object operations = item.get_object().value();
    for (auto [key, operation] : operations) {
      (void)operation;
      if (key != "parameters") documented.insert(std::string(key) + " " + std::string(path));
    }
  }
  std::set<std::string> served;
  for (const api::Route& route : api::routes())
    served.insert(std::string(operation_key(route.method)) + " " + std::string(route.pattern));
  EXPECT_EQ(documented, served);
}

}  // namespace
}  // namespace storeapi::testing
