#pragma once
// Command-line parsing: command words first, then `--flag value` pairs.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace storeapi::admin {

struct FlagSpec {
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

class Flags {
 public:
  // Takes `--name value` or `--name=value` pairs; rejects positional words, repeated
  // flags, flags missing their value, flags not in `spec` and missing required flags.
  Flags(std::span<const std::string> args, const FlagSpec& spec);

  const std::string& get(const std::string& name) const;  // a required flag
  std::optional<std::string> find(const std::string& name) const;
  // An optional flag as a non-negative integer, or `fallback` when absent.
  long count_or(const std::string& name, long fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

// Parses a non-negative decimal integer without sign or spaces; nullopt otherwise.
std::optional<long> parse_count(const std::string& text);

}  // namespace storeapi::admin
