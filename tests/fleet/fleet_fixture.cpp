#include "fleet/fleet_fixture.hpp"

#include "support/readiness.hpp"

namespace storeapi::testing {

void FleetTest::SetUp() {
  ASSERT_NO_FATAL_FAILURE(start_server(2, 2, fleet_settings()));
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", db_.url()},
                 {"STOREAPI_THREADS", "2"},
                 {"STOREAPI_ACCESS_LOG", "off"}};
  options.env.merge(fleet_settings());
  node_b_ = std::make_unique<ServerProcess>(options);
  ASSERT_TRUE(every_core_ready(node_b_->port())) << node_b_->stderr_text();
}

std::size_t occurrences(const std::string& haystack, const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(text); at != std::string::npos; at = haystack.find(text, at + text.size())) ++n;
  return n;
}

}  // namespace storeapi::testing
