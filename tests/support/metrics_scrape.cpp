#include "support/metrics_scrape.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>

#include "support/http_client.hpp"

namespace storeapi::testing {

std::string scrape_metrics(std::uint16_t port) {
  HttpClient client(port, std::chrono::seconds(30));
  client.not_the_api();
  client.send("GET", "/metrics");
  std::optional<HttpResponse> r = client.read_response();
  EXPECT_TRUE(r && r->status == 200);
  return r ? r->body : std::string();
}

double metric_value(const std::string& exposition, const std::string& series) {
  std::string needle = series + " ";
  std::size_t at = 0;
  if (!exposition.starts_with(needle)) {
    at = exposition.find("\n" + needle);
    if (at == std::string::npos) return -1;
    ++at;
  }
  return std::stod(exposition.substr(at + needle.size()));
}

std::string promtool_check_metrics(const std::string& exposition) {
  char path[] = "/tmp/storeapi-metrics-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return "mkstemp failed";
  ::close(fd);
  std::ofstream(path) << exposition;
  std::string output;
  FILE* p = ::popen(("promtool check metrics < " + std::string(path) + " 2>&1").c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  int status = ::pclose(p);
  std::remove(path);
  return status == 0 ? output : "exit " + std::to_string(status) + ": " + output;
}

}  // namespace storeapi::testing
