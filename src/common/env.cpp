#include "common/env.hpp"

#include <cstdlib>

namespace storeapi::env {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return nullptr;
  const std::string_view value(v);
  if (value.find(" #") != std::string_view::npos || value.find("\t#") != std::string_view::npos)
    throw SettingError(std::string(name) +
                       ": the value holds a comment (' #...'): an environment file (systemd's EnvironmentFile) keeps "
                       "everything after '=' in the value; put the comment on a line of its own, starting with #");
  return v;
}

void read_millis(const char* name, std::chrono::milliseconds& out) {
  long long ms = out.count();
  read_number<long long>(name, ms, 1, 86'400'000);
  out = std::chrono::milliseconds(ms);
}

}  // namespace storeapi::env
