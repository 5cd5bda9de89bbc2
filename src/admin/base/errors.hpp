#pragma once
// The two ways a command fails. Both end the command before its transaction commits,
// so nothing changes; main prints the message as one line on stderr.
#include <stdexcept>

namespace storeapi::admin {

// The command line is wrong: unknown command or flag, missing or malformed value (exit 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The request is well formed but cannot be done: unknown store, key limit reached,
// creator lacking access, ... (exit 1).
struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace storeapi::admin
