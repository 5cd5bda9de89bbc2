#include "two_pods.hpp"

#include "admin_cli.hpp"

#include <stdexcept>

namespace storeapi::testing {

TwoPods::TwoPods() {
  CliResult added = run_admin({"pod", "add", "--name", "second", "--url", second.url()}, directory.url());
  if (added.exit_code != 0) throw std::runtime_error("pod add: " + added.err);
}

}  // namespace storeapi::testing
