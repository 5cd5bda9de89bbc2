#include "support/readiness.hpp"

#include <stdexcept>

#include "support/http_client.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {

bool every_core_ready(std::uint16_t port, std::chrono::milliseconds timeout) {
  constexpr int kInARow = 20;
  return eventually(
      [port] {
        for (int i = 0; i < kInARow; ++i)
          if (HttpClient(port).request("GET", "/readyz").status != 200) return false;
        return true;
      },
      timeout);
}

std::unique_ptr<ServerProcess> start_api_server(const std::string& database_url, const std::string& secret,
                                                const std::map<std::string, std::string>& settings) {
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", database_url},
                 {"STOREAPI_SECRET", secret},
                 {"STOREAPI_ACCESS_LOG", "off"},
                 {"STOREAPI_THREADS", "2"}};
  for (const auto& [name, value] : settings) options.env.insert_or_assign(name, value);
  auto server = std::make_unique<ServerProcess>(options);
  if (!every_core_ready(server->port())) throw std::runtime_error("storeapi did not become ready: " + server->stderr_text());
  return server;
}

}  // namespace storeapi::testing
