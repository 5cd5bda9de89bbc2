#pragma once
// Runs the real build/storeapi-admin binary and captures what it prints.
#include <simdjson.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace storeapi::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// $STOREAPI_BUILD_DIR/storeapi-admin `args`, with STOREAPI_DATABASE_URL set to
// `database_url` (or removed when nullopt). Throws when STOREAPI_BUILD_DIR is unset.
CliResult run_admin(const std::vector<std::string>& args, const std::optional<std::string>& database_url);

// Starts the same command in the background, its output discarded, and returns its
// process id: for a test that kills it half-way (then waitpid) or waits for it.
pid_t start_admin(const std::vector<std::string>& args, const std::optional<std::string>& database_url);

// Parses a command's stdout (one JSON object); the parser owns the returned element.
simdjson::dom::element parse_json(simdjson::dom::parser& parser, const std::string& text);

}  // namespace storeapi::testing
