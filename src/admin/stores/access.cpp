#include "admin/stores/access.hpp"

#include "admin/base/errors.hpp"

namespace storeapi::admin {
namespace {

std::size_t resource_index(std::string_view name) {
  for (std::size_t i = 0; i < kResources.size(); ++i)
    if (kResources[i] == name) return i;
  throw UsageError("unknown resource '" + std::string(name) +
                   "' (expected orders, bookings, products or customers)");
}

Level parse_level(std::string_view name, bool allow_none) {
  auto level = level_named(name);
  if (level && (allow_none || *level != Level::none)) return *level;
  throw UsageError("unknown access level '" + std::string(name) + "' (expected " +
                   (allow_none ? "none, read or write)" : "read or write)"));
}

// Parses "resource:level,..."; `allow_none` decides whether "none" is a level.
AccessLevels parse_pairs(std::string_view text, bool allow_none) {
  AccessLevels levels{};
  std::array<bool, 4> seen{};
  if (text.empty()) return levels;
  for (bool more = true; more;) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) text.remove_prefix(comma + 1);
    auto colon = item.find(':');
    if (colon == std::string_view::npos)
      throw UsageError("expected resource:level, got '" + std::string(item) + "'");
    std::size_t r = resource_index(item.substr(0, colon));
    if (seen[r]) throw UsageError("resource '" + std::string(kResources[r]) + "' given twice");
    seen[r] = true;
    levels[r] = parse_level(item.substr(colon + 1), allow_none);
  }
  return levels;
}

}  // namespace

std::string_view level_name(Level level) {
  switch (level) {
    case Level::read: return "read";
    case Level::write: return "write";
    case Level::none: break;
  }
  return "none";
}

std::optional<Level> level_named(std::string_view name) {
  if (name == "none") return Level::none;
  if (name == "read") return Level::read;
  if (name == "write") return Level::write;
  return std::nullopt;
}

AccessLevels parse_access(std::string_view text) { return parse_pairs(text, true); }

AccessLevels parse_custom_scopes(std::string_view text) {
  if (text.empty()) throw UsageError("--scopes must name at least one scope");
  return parse_pairs(text, false);
}

AccessLevels key_levels(std::string_view access, const AccessLevels& custom) {
  AccessLevels levels = custom;
  if (access == "read") levels.fill(Level::read);
  else if (access == "full") levels.fill(Level::write);
  return levels;
}

std::vector<std::string> scopes_of(const AccessLevels& levels) {
  std::vector<std::string> scopes;
  for (std::size_t i = 0; i < kResources.size(); ++i)
    if (levels[i] != Level::none)
      scopes.push_back(std::string(kResources[i]) + ":" + std::string(level_name(levels[i])));
  return scopes;
}

std::string_view first_exceeding(const AccessLevels& wanted, const AccessLevels& held) {
  for (std::size_t i = 0; i < kResources.size(); ++i)
    if (wanted[i] > held[i]) return kResources[i];
  return {};
}

}  // namespace storeapi::admin
