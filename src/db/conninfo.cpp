#include "db/conninfo.hpp"

#include <libpq-fe.h>

#include <memory>
#include <string_view>

#include "common/env.hpp"

namespace storeapi::db {

std::optional<bool> conninfo_has_password(const std::string& conninfo) {
  char* parse_error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(
      PQconninfoParse(conninfo.c_str(), &parse_error), &PQconninfoFree);
  if (parse_error) PQfreemem(parse_error);
  if (!options) return std::nullopt;
  for (const PQconninfoOption* o = options.get(); o->keyword; ++o)
    if (std::string_view(o->keyword) == "password" && o->val && *o->val) return true;
  return false;
}

void check_conninfo_setting(const std::string& setting, const std::string& conninfo) {
  if (!conninfo_has_password(conninfo))
    throw env::SettingError(setting +
                            ": not a libpq connection URL or string (expected e.g. "
                            "postgresql://storeapi@127.0.0.1:5432/storeapi or host=... dbname=...)");
}

}  // namespace storeapi::db
