// storeapi-admin: migrations, stores, staff, API keys, webhook endpoints and deliveries,
// seed data.
// The commands live in the storeapi_admin library (see commands.hpp).
#include "admin/cli/commands.hpp"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return storeapi::admin::run(args, std::cout, std::cerr);
}
