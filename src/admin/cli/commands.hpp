#pragma once
// storeapi-admin's command table: parses the command line, runs one command in one
// transaction and prints one JSON object.
#include <ostream>
#include <span>
#include <string>

namespace storeapi::admin {

// `args` excludes the program name. Returns the exit code: 0 success, 1 the command
// could not be done, 2 bad command line. Errors are one line on `err`.
int run(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace storeapi::admin
