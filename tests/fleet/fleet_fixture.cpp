#include "fleet/fleet_fixture.hpp"

#include "support/readiness.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {

void FleetTest::SetUp() {
  ASSERT_NO_FATAL_FAILURE(start_server(2, 2, fleet_settings()));
  node_b_ = start_node();
}

std::unique_ptr<ServerProcess> FleetTest::start_node(std::uint16_t port, const std::map<std::string, std::string>& settings) {
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db_)},
                 {"STOREAPI_THREADS", "2"},
                 {"STOREAPI_ACCESS_LOG", "off"},
                 {"STOREAPI_LISTEN", "127.0.0.1:" + std::to_string(port)}};
  for (const auto& [name, value] : settings) options.env.insert_or_assign(name, value);
  options.env.merge(fleet_settings());
  auto node = std::make_unique<ServerProcess>(options);
  EXPECT_TRUE(every_core_ready(node->port())) << node->stderr_text();
  return node;
}

std::size_t occurrences(const std::string& haystack, const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(text); at != std::string::npos; at = haystack.find(text, at + text.size())) ++n;
  return n;
}

std::size_t redis_back_lines(const std::string& stderr_text) {
  return occurrences(stderr_text, " is back\n") - occurrences(stderr_text, " until it is back\n");
}

}  // namespace storeapi::testing
