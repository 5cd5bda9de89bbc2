#include "common/build_version.hpp"

#include <cstdio>
#include <cstring>

#include "build_commit.hpp"  // STOREAPI_GIT_COMMIT; STOREAPI_VERSION comes from meson.build

namespace storeapi::build {

std::string_view version() { return STOREAPI_VERSION; }

std::string_view commit() { return STOREAPI_GIT_COMMIT; }

std::string describe(std::string_view program) {
  return std::string(program) + " " + std::string(version()) + " (commit " + std::string(commit()) + ")";
}

bool print_version_if_asked(int argc, char** argv, std::string_view program) {
  if (argc != 2 || std::strcmp(argv[1], "--version") != 0) return false;
  std::printf("%s\n", describe(program).c_str());
  return true;
}

}  // namespace storeapi::build
