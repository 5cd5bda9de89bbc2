#pragma once
// Dashboard access (per resource none/read/write) and the API scopes derived from it.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::admin {

// The four resources, in the order scopes are listed.
inline constexpr std::array<std::string_view, 4> kResources = {"orders", "bookings", "products",
                                                               "customers"};

enum class Level { none = 0, read = 1, write = 2 };

std::string_view level_name(Level level);
// "none", "read" or "write"; nullopt for anything else.
std::optional<Level> level_named(std::string_view name);

// Levels indexed like kResources.
using AccessLevels = std::array<Level, 4>;

// "orders:write,bookings:read": each resource at most once, level none/read/write;
// resources not named get none. Throws UsageError on anything else.
AccessLevels parse_access(std::string_view text);

// "orders:read,products:write" for a custom key: level read/write only, each resource
// at most once, at least one scope. Throws UsageError otherwise.
AccessLevels parse_custom_scopes(std::string_view text);

// The levels a key is granted: read = read on all four, full = write on all four,
// custom = exactly what was chosen.
AccessLevels key_levels(std::string_view access, const AccessLevels& custom);

// Scope names in kResources order, one per resource above none ("orders:write"); a
// :write does not add the implied :read.
std::vector<std::string> scopes_of(const AccessLevels& levels);

// The first resource on which `wanted` exceeds `held`, or empty when `held` covers all.
std::string_view first_exceeding(const AccessLevels& wanted, const AccessLevels& held);

}  // namespace storeapi::admin
