#include "admin/cli/args.hpp"

#include "admin/base/errors.hpp"

#include <algorithm>
#include <charconv>

namespace storeapi::admin {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Flags::Flags(std::span<const std::string> args, const FlagSpec& spec) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0)
      throw UsageError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2);
    std::string value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw UsageError("flag --" + name + " needs a value");
    }
    if (!contains(spec.required, name) && !contains(spec.optional, name))
      throw UsageError("unknown flag --" + name);
    if (!values_.emplace(name, value).second) throw UsageError("flag --" + name + " given twice");
  }
  for (const auto& name : spec.required)
    if (!values_.contains(name)) throw UsageError("missing flag --" + name);
}

const std::string& Flags::get(const std::string& name) const { return values_.at(name); }

std::optional<std::string> Flags::find(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

long Flags::count_or(const std::string& name, long fallback) const {
  auto text = find(name);
  if (!text) return fallback;
  auto n = parse_count(*text);
  if (!n) throw UsageError("--" + name + " must be a non-negative integer, got '" + *text + "'");
  return *n;
}

std::optional<long> parse_count(const std::string& text) {
  long n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || n < 0)
    return std::nullopt;
  return n;
}

}  // namespace storeapi::admin
