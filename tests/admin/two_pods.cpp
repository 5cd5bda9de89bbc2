#include "two_pods.hpp"

#include "admin_cli.hpp"
#include "support/runtime_role.hpp"

#include <cstdlib>
#include <stdexcept>

namespace storeapi::testing {

TwoPods::TwoPods() {
  // Pod `second` as the API nodes reach it (the runtime role); the tool migrates it as its
  // own role, and moves stores as the clusters' superuser, the mover.
  ::setenv("STOREAPI_MOVER_USER", cluster_superuser().c_str(), 1);
  CliResult added = run_admin({"pod", "add", "--name", "second", "--url", api_url(second)}, directory.url());
  if (added.exit_code != 0) throw std::runtime_error("pod add: " + added.err);
}

}  // namespace storeapi::testing
