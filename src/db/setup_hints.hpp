#pragma once
// Start-up hints for the database mistakes an operator makes first: a database nobody
// migrated (every request would fail on `relation "api_keys" does not exist`, for ever)
// and a role without the rights the server needs (`permission denied`). One line each,
// naming what to run; the server starts anyway and recovers once it is fixed.
#include <chrono>
#include <string>
#include <vector>

namespace storeapi::db {

// Blocking (before the cores start). The hints for the database `url` names, none when
// it looks right or does not answer within `timeout` (the pools say that themselves).
std::vector<std::string> setup_hints(const std::string& url, std::chrono::seconds timeout);

}  // namespace storeapi::db
