#pragma once
// `storeapi-admin --help` and `storeapi-admin COMMAND --help`, written from the command
// table the parser uses (commands.cpp), so a command or flag cannot be missing from them.
#include <span>
#include <string>
#include <string_view>

#include "admin/cli/args.hpp"

namespace storeapi::admin {

struct CommandHelp {
  std::string_view name;     // the command words
  std::string_view summary;  // one line
  const FlagSpec* flags;
};

// The flags every command takes besides its own.
inline constexpr std::string_view kGlobalFlags[] = {"database-url"};

// Every command with its summary, one line each, and how to get a command's flags.
std::string overview_help(std::span<const CommandHelp> commands);
// The command's usage line, its summary, then each flag on a line of its own with what
// it takes. Throws std::logic_error for a flag without a line in the flag table.
std::string command_help(const CommandHelp& command);

}  // namespace storeapi::admin
