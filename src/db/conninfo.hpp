#pragma once
// What libpq's own parser makes of a connection string or URL, without connecting: the
// settings that hold one are checked at start, so a malformed value stops the program
// with a message naming the setting instead of a server answering 503 for ever.
#include <optional>
#include <string>

namespace storeapi::db {

// Whether `conninfo` (URL or key=value form) carries a password; nullopt when libpq
// cannot parse it.
std::optional<bool> conninfo_has_password(const std::string& conninfo);

// Throws env::SettingError naming `setting` when libpq cannot parse `conninfo`. The value
// and libpq's message (which quotes it) are not repeated: either may hold a password.
void check_conninfo_setting(const std::string& setting, const std::string& conninfo);

}  // namespace storeapi::db
