#pragma once
// Which build this is: the release version (meson.build's project(version:), the one place
// it is written) and the commit it was built from. Printed by every program's --version
// and at start, exported as <program>_build_info{version,commit} and on /healthz
// (docs/DEPLOY.md, "Upgrading").
#include <string>
#include <string_view>

namespace storeapi::build {

std::string_view version();
// The commit's short id at build time; "unknown" when built outside a git checkout.
std::string_view commit();
// "PROGRAM VERSION (commit COMMIT)".
std::string describe(std::string_view program);
// True, having printed describe(program) on stdout, when the only argument is --version.
bool print_version_if_asked(int argc, char** argv, std::string_view program);

}  // namespace storeapi::build
