#include "support/readiness.hpp"

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

}  // namespace storeapi::testing
